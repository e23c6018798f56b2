import { afterEach, describe, expect, it } from 'vitest';
import { R, type ConfigMap, type Namespace, type Pod } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { NamespaceController } from './namespace.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

async function setup() {
  const env = fakeContext();
  envs.push(env);
  await env.api.create<Namespace>(R.namespaces, undefined, { metadata: { name: 'team' } });
  await env.api.create<Pod>(R.pods, 'team', { metadata: { name: 'p' }, spec: { containers: [] } });
  await env.api.create<ConfigMap>(R.configmaps, 'team', { metadata: { name: 'c' } });
  await env.api.create(R.serviceaccounts, 'team', { metadata: { name: 'default' } });
  await env.api.create<ConfigMap>(R.configmaps, 'other', { metadata: { name: 'keep' } });
  const c = new NamespaceController(env.ctx);
  env.informers.start(env.abort.signal);
  void c.run();
  await settle();
  return env;
}

describe('namespace-controller', () => {
  it('deletes all content of a terminating namespace and then finalizes it', async () => {
    const env = await setup();
    await env.api.delete(R.namespaces, undefined, 'team');
    await settle();
    expect(env.api.all(R.pods, 'team')).toEqual([]);
    expect(env.api.all(R.configmaps, 'team')).toEqual([]);
    expect(env.api.all(R.serviceaccounts, 'team')).toEqual([]);
    expect(env.api.all(R.namespaces).map((n) => n.metadata.name)).toEqual([]);
    expect(env.api.all(R.configmaps, 'other')).toHaveLength(1);
    expect(env.api.calls.some((c) => c.verb === 'update/finalize')).toBe(true);
  });

  it('waits for content held by finalizers, reporting it in conditions', async () => {
    const env = await setup();
    await env.api.create<ConfigMap>(R.configmaps, 'team', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await env.api.delete(R.namespaces, undefined, 'team');
    await settle();
    const ns = await env.api.get<Namespace>(R.namespaces, undefined, 'team');
    expect(ns.status?.phase).toBe('Terminating');
    const conds = Object.fromEntries((ns.status?.conditions ?? []).map((c) => [c.type, c]));
    expect(conds.NamespaceContentRemaining).toMatchObject({
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: configmaps. has 1 resource instances',
    });
    expect(conds.NamespaceFinalizersRemaining).toMatchObject({
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
    });
    expect(conds.NamespaceDeletionDiscoveryFailure).toMatchObject({ status: 'False', reason: 'ResourcesDiscovered' });
    expect(conds.NamespaceDeletionContentFailure).toMatchObject({ status: 'False', reason: 'ContentDeleted' });
    // The finalizer's owner lets go; the next pass (a second later) finishes the namespace.
    const cm = await env.api.get<ConfigMap>(R.configmaps, 'team', 'held');
    await env.api.update(R.configmaps, 'team', { ...cm, metadata: { ...cm.metadata, finalizers: [] } });
    await env.clock.advance(2000);
    await settle();
    expect(env.api.all(R.namespaces).map((n) => n.metadata.name)).toEqual([]);
  });
});
