import { afterEach, describe, expect, it } from 'vitest';
import { R, type Namespace, type ServiceAccount } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { ServiceAccountController } from './serviceaccount.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

describe('serviceaccount-controller', () => {
  it('creates "default" in every active namespace and recreates it when deleted', async () => {
    const env = fakeContext();
    envs.push(env);
    await env.api.create<Namespace>(R.namespaces, undefined, { metadata: { name: 'existing' } });
    const c = new ServiceAccountController(env.ctx);
    env.informers.start(env.abort.signal);
    void c.run();
    await settle();
    expect(env.api.all<ServiceAccount>(R.serviceaccounts, 'existing').map((s) => s.metadata.name)).toEqual(['default']);
    await env.api.create<Namespace>(R.namespaces, undefined, { metadata: { name: 'team-a' } });
    await settle();
    expect(env.api.all<ServiceAccount>(R.serviceaccounts, 'team-a').map((s) => s.metadata.name)).toEqual(['default']);
    await env.api.delete(R.serviceaccounts, 'team-a', 'default');
    await settle();
    expect(env.api.all<ServiceAccount>(R.serviceaccounts, 'team-a').map((s) => s.metadata.name)).toEqual(['default']);
  });

  it('leaves terminating namespaces alone', async () => {
    const env = fakeContext();
    envs.push(env);
    const c = new ServiceAccountController(env.ctx);
    env.informers.start(env.abort.signal);
    void c.run();
    await env.api.create<Namespace>(R.namespaces, undefined, { metadata: { name: 'going' } });
    await settle();
    await env.api.delete(R.namespaces, undefined, 'going');
    await env.api.delete(R.serviceaccounts, 'going', 'default');
    await settle();
    expect(env.api.all<ServiceAccount>(R.serviceaccounts, 'going')).toEqual([]);
  });
});
