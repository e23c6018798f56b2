import { afterEach, describe, expect, it } from 'vitest';
import { R, type ClusterRole, type PolicyRule } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { aggregateRules, ClusterRoleAggregationController } from './clusterrole-aggregation.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

const rule = (verb: string, resource: string): PolicyRule => ({ verbs: [verb], apiGroups: [''], resources: [resource] });
const role = (name: string, labels: Record<string, string>, rules?: PolicyRule[], aggregateLabel?: string): ClusterRole => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name, labels },
  ...(rules ? { rules } : {}),
  ...(aggregateLabel ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateLabel]: 'true' } }] } } : {}),
});

async function start(...roles: ClusterRole[]): Promise<FakeEnv> {
  const env = fakeContext();
  envs.push(env);
  for (const r of roles) await env.api.create(R.clusterroles, undefined, r);
  const c = new ClusterRoleAggregationController(env.ctx);
  env.informers.start(env.abort.signal);
  void c.run();
  await settle();
  return env;
}

const rulesOf = async (env: FakeEnv, name: string) => (await env.api.get<ClusterRole>(R.clusterroles, undefined, name)).rules;
const updates = (env: FakeEnv) => env.api.calls.filter((c) => c.verb === 'update' && c.resource === 'clusterroles').length;

describe('clusterrole-aggregation-controller', () => {
  it('fills an aggregated role with the rules of the roles its selectors match, by name, duplicates dropped', async () => {
    const env = await start(
      role('monitoring', {}, undefined, 'example.com/aggregate-to-monitoring'),
      role('b-metrics', { 'example.com/aggregate-to-monitoring': 'true' }, [rule('get', 'pods'), rule('list', 'nodes')]),
      role('a-pods', { 'example.com/aggregate-to-monitoring': 'true' }, [rule('list', 'nodes'), rule('watch', 'pods')]),
      role('unrelated', {}, [rule('delete', 'secrets')]),
    );
    expect(await rulesOf(env, 'monitoring')).toEqual([rule('list', 'nodes'), rule('watch', 'pods'), rule('get', 'pods')]);
  });

  it('follows changes and deletions of the aggregated-from roles, and writes nothing when nothing changes', async () => {
    const env = await start(
      role('monitoring', {}, undefined, 'example.com/aggregate-to-monitoring'),
      role('a-pods', { 'example.com/aggregate-to-monitoring': 'true' }, [rule('get', 'pods')]),
    );
    expect(await rulesOf(env, 'monitoring')).toEqual([rule('get', 'pods')]);
    const cur = await env.api.get<ClusterRole>(R.clusterroles, undefined, 'a-pods');
    await env.api.update(R.clusterroles, undefined, { ...cur, rules: [rule('get', 'pods'), rule('get', 'services')] });
    await settle();
    expect(await rulesOf(env, 'monitoring')).toEqual([rule('get', 'pods'), rule('get', 'services')]);
    // A change to a role nobody aggregates re-queues the aggregate but writes nothing.
    const before = updates(env);
    await env.api.create(R.clusterroles, undefined, role('unrelated', {}, [rule('delete', 'secrets')]));
    await settle();
    expect(updates(env)).toBe(before);
    await env.api.delete(R.clusterroles, undefined, 'a-pods');
    await settle();
    expect(await rulesOf(env, 'monitoring')).toEqual([]);
  });

  it('chains view → edit → admin through their aggregate-to labels, as the bootstrap roles are set up', async () => {
    const env = await start(
      role('admin', {}, undefined, 'rbac.authorization.k8s.io/aggregate-to-admin'),
      role('edit', { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' }, undefined, 'rbac.authorization.k8s.io/aggregate-to-edit'),
      role('view', { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }, undefined, 'rbac.authorization.k8s.io/aggregate-to-view'),
      role('system:aggregate-to-view', { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' }, [rule('get', 'pods')]),
      role('system:aggregate-to-edit', { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }, [rule('create', 'pods')]),
      role('system:aggregate-to-admin', { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' }, [rule('create', 'roles')]),
    );
    await settle();
    expect(await rulesOf(env, 'view')).toEqual([rule('get', 'pods')]);
    expect(await rulesOf(env, 'edit')).toEqual([rule('create', 'pods'), rule('get', 'pods')]);
    expect(await rulesOf(env, 'admin')).toEqual([rule('create', 'pods'), rule('get', 'pods'), rule('create', 'roles')]);
  });

  it('leaves roles without an aggregationRule alone', () => {
    const plain = role('plain', {}, [rule('get', 'pods')]);
    expect(aggregateRules(plain, [plain, role('x', { a: 'true' }, [rule('get', 'nodes')])])).toEqual([]);
  });
});
