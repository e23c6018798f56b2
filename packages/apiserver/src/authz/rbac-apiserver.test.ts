// The wiring server.ts does, on a real (in-memory) apiserver: RBAC objects created over HTTP (defaulted
// and validated as any write) are read by the authorizer through the watch cache, and the registry's
// writeGuard refuses an escalating write.
import { R, type KubeObject } from '@kemu/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { RbacAuthorizer } from './rbac.ts';
import { rbacLookupsFromCacher } from './rbac-cacher.ts';
import { rbacWriteGuard } from './rbac-escalation.ts';
import type { Attributes } from './types.ts';

let srv: ApiServer;
let authz: RbacAuthorizer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
  authz = new RbacAuthorizer(rbacLookupsFromCacher(srv.ctx.cacher));
  srv.ctx.registry.opts.writeGuard = rbacWriteGuard({ resolver: authz, authorize: (a) => authz.authorize(a) });
});
afterAll(async () => srv?.close());

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
async function post(url: string, body: unknown): Promise<KubeObject> {
  const r = await srv.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  expect(r.statusCode, r.body).toBe(201);
  const o = r.json() as KubeObject;
  await srv.ctx.cacher.waitFor(Number(o.metadata.resourceVersion));
  return o;
}
const get = (user: { username: string; groups: string[] }, resource: string, namespace: string, name = ''): Attributes => ({
  user,
  verb: 'get',
  resourceRequest: true,
  path: '',
  apiGroup: '',
  apiVersion: 'v1',
  resource,
  subresource: '',
  namespace,
  name,
});

describe('RBAC on a running apiserver', () => {
  it('follows roles and bindings written through the API (subject apiGroup left to the defaults)', async () => {
    const jane = { username: 'jane', groups: ['system:authenticated'] };
    expect(authz.authorize(get(jane, 'pods', 'default', 'p')).decision).toBe('noOpinion');
    await post(`${RBAC}/namespaces/default/roles`, { metadata: { name: 'pod-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
    await post(`${RBAC}/namespaces/default/rolebindings`, { metadata: { name: 'jane' }, roleRef: { kind: 'Role', name: 'pod-reader' }, subjects: [{ kind: 'User', name: 'jane' }] });
    expect(authz.authorize(get(jane, 'pods', 'default', 'p'))).toEqual({ decision: 'allow', reason: 'RBAC: allowed by RoleBinding "jane/default" of Role "pod-reader" to User "jane"' });
    expect(authz.authorize(get(jane, 'pods', 'kube-system', 'p')).decision).toBe('noOpinion');
    const ssrr = authz.rulesFor(jane, 'default');
    expect(ssrr.resourceRules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }]);
  });

  it('the writeGuard refuses a role granting more than the writer holds, and lets system:masters through', async () => {
    const role = (name: string): KubeObject => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: 'default' }, rules: [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }] });
    await expect(srv.ctx.registry.create(R.roles, role('more'), { userInfo: { username: 'jane', groups: ['system:authenticated'] } })).rejects.toThrow(
      'roles.rbac.authorization.k8s.io "more" is forbidden: user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
    );
    const ok = await srv.ctx.registry.create(R.roles, role('by-admin'), { userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] } });
    expect(ok.metadata.uid).toBeDefined();
  });
});
