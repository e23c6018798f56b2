import { afterEach, describe, expect, it } from 'vitest';
import { R, type KubeObject } from '@kemu/api';
import { silentLogger } from '@kemu/base';
import { bootstrapPolicy, type ClusterRole, type ClusterRoleBinding } from '../authz/bootstrap-policy/index.ts';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { bootstrapPolicyCheck, ensureBootstrapPolicy } from './rbac-policy.ts';

const servers: ApiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(): Promise<ApiServer> {
  const srv = await startMemoryApiServer();
  servers.push(srv);
  return srv;
}

async function get<T>(srv: ApiServer, path: string): Promise<{ status: number; body: T }> {
  const res = await srv.app.inject({ method: 'GET', url: path });
  return { status: res.statusCode, body: res.json() as T };
}

const FAST = { retryIntervalMs: 10, timeoutMs: 2000 };
const CR = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const CRB = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';

describe('ensureBootstrapPolicy (PostStartHook rbac/bootstrap-roles)', () => {
  it('creates every bootstrap role and binding on an empty apiserver, served as Kubernetes shows them', async () => {
    const srv = await server();
    await ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST);
    const policy = bootstrapPolicy();
    const roles = await get<{ items: ClusterRole[] }>(srv, CR);
    expect(roles.body.items.map((r) => r.metadata.name).sort()).toEqual(policy.clusterRoles.map((r) => r.metadata.name).sort());
    const bindings = await get<{ items: ClusterRoleBinding[] }>(srv, CRB);
    expect(bindings.body.items).toHaveLength(policy.clusterRoleBindings.length);
    const scheduler = await get<ClusterRole>(srv, `${CR}/system:kube-scheduler`);
    expect(scheduler.status).toBe(200);
    expect(scheduler.body.metadata.annotations).toEqual({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    expect(scheduler.body.rules).toContainEqual({ verbs: ['get', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['kube-scheduler'] });
    const admin = await get<ClusterRole>(srv, `${CR}/admin`);
    expect(admin.body.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } }] });
    const reader = await get<KubeObject>(srv, '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings/system::extension-apiserver-authentication-reader');
    expect(reader.status).toBe(200);
    const publicRole = await get<KubeObject>(srv, '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/roles/system:controller:bootstrap-signer');
    expect(publicRole.status).toBe(200);
  });

  it('is idempotent: a second run writes nothing', async () => {
    const srv = await server();
    await ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST);
    const rv = async () => (await get<{ metadata: { resourceVersion: string } }>(srv, CR)).body.metadata.resourceVersion;
    const before = await rv();
    await ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST);
    expect(await rv()).toBe(before);
  });

  it('unions missing rules and subjects back into auto-updated objects, keeping additions, and leaves autoupdate=false alone', async () => {
    const srv = await server();
    await ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST);
    const extra = { verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] };
    // An administrator trims system:kube-scheduler and adds a rule of their own …
    const scheduler = (await get<ClusterRole>(srv, `${CR}/system:kube-scheduler`)).body;
    scheduler.rules = [...(scheduler.rules ?? []).slice(1), extra];
    expect((await srv.app.inject({ method: 'PUT', url: `${CR}/system:kube-scheduler`, payload: scheduler })).statusCode).toBe(200);
    // … trims system:kube-controller-manager but protects it …
    const kcm = (await get<ClusterRole>(srv, `${CR}/system:kube-controller-manager`)).body;
    kcm.rules = [extra];
    kcm.metadata.annotations = { 'rbac.authorization.kubernetes.io/autoupdate': 'false' };
    expect((await srv.app.inject({ method: 'PUT', url: `${CR}/system:kube-controller-manager`, payload: kcm })).statusCode).toBe(200);
    // … and empties the system:discovery binding.
    const discovery = (await get<ClusterRoleBinding>(srv, `${CRB}/system:discovery`)).body;
    discovery.subjects = [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' }];
    expect((await srv.app.inject({ method: 'PUT', url: `${CRB}/system:discovery`, payload: discovery })).statusCode).toBe(200);

    await ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST);

    const s = (await get<ClusterRole>(srv, `${CR}/system:kube-scheduler`)).body.rules ?? [];
    expect(s).toContainEqual(extra); // never removed
    // The removed events rule comes back as its broken-down pieces, as kubectl auth reconcile adds them.
    expect(s).toContainEqual({ verbs: ['create'], apiGroups: [''], resources: ['events'] });
    expect(s).toContainEqual({ verbs: ['update'], apiGroups: ['events.k8s.io'], resources: ['events'] });
    expect(s).toHaveLength(bootstrapPolicy().clusterRoles.find((r) => r.metadata.name === 'system:kube-scheduler')!.rules!.length - 1 + 1 + 6);
    expect((await get<ClusterRole>(srv, `${CR}/system:kube-controller-manager`)).body.rules).toEqual([extra]);
    expect((await get<ClusterRoleBinding>(srv, `${CRB}/system:discovery`)).body.subjects?.map((x) => x.name)).toEqual(['jane', 'system:authenticated']);
  });

  it('recreates a deleted role and keeps rules an aggregated role has gathered', async () => {
    const srv = await server();
    await ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST);
    expect((await srv.app.inject({ method: 'DELETE', url: `${CR}/system:basic-user` })).statusCode).toBe(200);
    const view = (await get<ClusterRole>(srv, `${CR}/view`)).body;
    view.rules = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
    expect((await srv.app.inject({ method: 'PUT', url: `${CR}/view`, payload: view })).statusCode).toBe(200);
    await ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST);
    expect((await get<ClusterRole>(srv, `${CR}/system:basic-user`)).status).toBe(200);
    const after = (await get<ClusterRole>(srv, `${CR}/view`)).body;
    expect(after.rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    expect(after.aggregationRule?.clusterRoleSelectors).toHaveLength(1);
  });

  it('three replicas running it at once end with one copy of each object and no error', async () => {
    const srv = await server();
    await Promise.all([1, 2, 3].map(() => ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST)));
    const roles = await get<{ items: ClusterRole[] }>(srv, CR);
    expect(roles.body.items).toHaveLength(bootstrapPolicy().clusterRoles.length);
    const node = (await get<ClusterRole>(srv, `${CR}/system:node`)).body;
    expect(node.rules).toEqual(bootstrapPolicy().clusterRoles.find((r) => r.metadata.name === 'system:node')!.rules);
  });

  it('three replicas reconciling the same trimmed role add the missing rules once', async () => {
    const srv = await server();
    await ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST);
    const expected = bootstrapPolicy().clusterRoles.find((r) => r.metadata.name === 'system:node-proxier')!.rules!;
    const trimmed = (await get<ClusterRole>(srv, `${CR}/system:node-proxier`)).body;
    trimmed.rules = expected.slice(0, 1);
    expect((await srv.app.inject({ method: 'PUT', url: `${CR}/system:node-proxier`, payload: trimmed })).statusCode).toBe(200);
    await Promise.all([1, 2, 3].map(() => ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST)));
    const rules = (await get<ClusterRole>(srv, `${CR}/system:node-proxier`)).body.rules ?? [];
    // nodes get/list/watch (3), events create/update/patch in two groups (6), endpointslices list/watch (2).
    expect(rules).toHaveLength(1 + 3 + 6 + 2);
    expect(new Set(rules.map((r) => JSON.stringify(r))).size).toBe(rules.length);
  });

  it('a binding whose roleRef was changed is deleted and created again with the bootstrap roleRef', async () => {
    const srv = await server();
    await ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST);
    // roleRef is immutable in Kubernetes; put the changed binding in place the only way that works: anew.
    expect((await srv.app.inject({ method: 'DELETE', url: `${CRB}/system:basic-user` })).statusCode).toBe(200);
    const payload = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'system:basic-user' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [] };
    expect((await srv.app.inject({ method: 'POST', url: CRB, payload })).statusCode).toBe(201);
    await ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST);
    const b = (await get<ClusterRoleBinding>(srv, `${CRB}/system:basic-user`)).body;
    expect(b.roleRef.name).toBe('system:basic-user');
    expect(b.subjects?.map((x) => x.name)).toEqual(['system:authenticated']);
    expect(b.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
  });

  it('/healthz/poststarthook/rbac/bootstrap-roles fails until the hook is done, then is ok', async () => {
    const hook = bootstrapPolicyCheck();
    const srv = await startMemoryApiServer({ checks: { 'poststarthook/rbac/bootstrap-roles': hook.check } });
    servers.push(srv);
    const probe = () => srv.app.inject({ method: 'GET', url: '/healthz/poststarthook/rbac/bootstrap-roles' });
    expect((await probe()).statusCode).toBe(500);
    expect((await srv.app.inject({ method: 'GET', url: '/readyz?verbose' })).body).toContain('[-]poststarthook/rbac/bootstrap-roles failed: reason withheld');
    await ensureBootstrapPolicy(srv.ctx.registry, silentLogger(), FAST);
    hook.done();
    const ok = await probe();
    expect([ok.statusCode, ok.body]).toEqual([200, 'ok']);
    expect((await srv.app.inject({ method: 'GET', url: '/healthz?verbose' })).body).toContain('[+]poststarthook/rbac/bootstrap-roles ok');
  });
});
