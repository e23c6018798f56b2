import { afterEach, describe, expect, it } from 'vitest';
import { R, type KubeObject, type OwnerReference, type Pod, type ReplicaSet } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { GarbageCollector } from './garbagecollector.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

function ref(o: KubeObject, block = true): OwnerReference {
  return { apiVersion: o.apiVersion ?? '', kind: o.kind ?? '', name: o.metadata.name ?? '', uid: o.metadata.uid ?? '', controller: true, blockOwnerDeletion: block };
}

async function setup(seed?: (env: FakeEnv) => Promise<void>) {
  const env = fakeContext();
  envs.push(env);
  await seed?.(env);
  const gc = new GarbageCollector(env.ctx);
  env.informers.start(env.abort.signal);
  void gc.run();
  await settle();
  return { ...env, gc };
}

async function rsWithPods(env: FakeEnv, n = 2, block = true): Promise<ReplicaSet> {
  const rs = await env.api.create<ReplicaSet>(R.replicasets, 'default', {
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } } },
  });
  for (let i = 0; i < n; i++)
    await env.api.create<Pod>(R.pods, 'default', { metadata: { name: `web-${i}`, ownerReferences: [ref(rs, block)] }, spec: { containers: [] } });
  return rs;
}

const podNames = (env: FakeEnv) => env.api.all<Pod>(R.pods, 'default').map((p) => p.metadata.name).sort();

describe('garbage-collector-controller', () => {
  it('background: deletes dependents once their owner is gone', async () => {
    const env = await setup();
    await rsWithPods(env);
    await settle();
    expect(podNames(env)).toEqual(['web-0', 'web-1']);
    await env.api.delete(R.replicasets, 'default', 'web', { propagationPolicy: 'Background' });
    await settle();
    expect(podNames(env)).toEqual([]);
  });

  it('deletes dependents found at startup whose owner never existed or was recreated with another uid', async () => {
    const env = await setup(async (e) => {
      await e.api.create<Pod>(R.pods, 'default', {
        metadata: { name: 'dangling', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'nope', uid: 'gone' }] },
        spec: { containers: [] },
      });
      await e.api.create<ReplicaSet>(R.replicasets, 'default', { metadata: { name: 'web' }, spec: { selector: {} } });
      await e.api.create<Pod>(R.pods, 'default', {
        metadata: { name: 'stale', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'old-uid' }] },
        spec: { containers: [] },
      });
    });
    await settle();
    expect(podNames(env)).toEqual([]);
    expect(env.api.all(R.replicasets, 'default')).toHaveLength(1);
  });

  it('keeps a dependent with a live owner and only drops the reference to the vanished one', async () => {
    const env = await setup();
    const a = await env.api.create<ReplicaSet>(R.replicasets, 'default', { metadata: { name: 'a' }, spec: { selector: {} } });
    const b = await env.api.create<ReplicaSet>(R.replicasets, 'default', { metadata: { name: 'b' }, spec: { selector: {} } });
    await env.api.create<Pod>(R.pods, 'default', { metadata: { name: 'shared', ownerReferences: [ref(a), { ...ref(b), controller: false }] }, spec: { containers: [] } });
    await env.api.delete(R.replicasets, 'default', 'a');
    await settle();
    const pod = await env.api.get<Pod>(R.pods, 'default', 'shared');
    expect(pod.metadata.ownerReferences?.map((r) => r.name)).toEqual(['b']);
  });

  it('does not delete a dependent whose owner exists but is not in its cache yet (live GET first)', async () => {
    const env = await setup();
    env.informers.get(R.replicasets).hold();
    await rsWithPods(env);
    await settle();
    expect(podNames(env)).toEqual(['web-0', 'web-1']);
    env.informers.get(R.replicasets).release();
  });

  it('foreground: deletes blocking dependents first, then removes the finalizer', async () => {
    const env = await setup();
    await rsWithPods(env, 3);
    await settle();
    let podsLeftWhenOwnerWent = -1;
    env.api.subscribe((e) => {
      if (e.type === 'DELETED' && e.resource === R.replicasets) podsLeftWhenOwnerWent = env.api.all(R.pods, 'default').length;
    });
    await env.api.delete(R.replicasets, 'default', 'web', { propagationPolicy: 'Foreground' });
    await settle();
    expect(podNames(env)).toEqual([]);
    expect(env.api.all(R.replicasets, 'default')).toEqual([]);
    expect(podsLeftWhenOwnerWent).toBe(0);
  });

  it('orphan: removes the owner reference from dependents, then the finalizer', async () => {
    const env = await setup();
    await rsWithPods(env, 2);
    await settle();
    await env.api.delete(R.replicasets, 'default', 'web', { propagationPolicy: 'Orphan' });
    await settle();
    expect(env.api.all(R.replicasets, 'default')).toEqual([]);
    const pods = env.api.all<Pod>(R.pods, 'default');
    expect(pods).toHaveLength(2);
    expect(pods.every((p) => p.metadata.ownerReferences === undefined)).toBe(true);
  });

  it('cascades through levels (deployment → replicaset → pods)', async () => {
    const env = await setup();
    const d = await env.api.create<KubeObject>(R.deployments, 'default', { metadata: { name: 'web' }, spec: {} });
    const rs = await env.api.create<ReplicaSet>(R.replicasets, 'default', { metadata: { name: 'web-1', ownerReferences: [ref(d)] }, spec: { selector: {} } });
    await env.api.create<Pod>(R.pods, 'default', { metadata: { name: 'web-1-a', ownerReferences: [ref(rs)] }, spec: { containers: [] } });
    await settle();
    await env.api.delete(R.deployments, 'default', 'web', { propagationPolicy: 'Foreground' });
    await settle(100);
    expect(env.api.all(R.deployments, 'default')).toEqual([]);
    expect(env.api.all(R.replicasets, 'default')).toEqual([]);
    expect(podNames(env)).toEqual([]);
  });
});
