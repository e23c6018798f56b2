// The RBAC authorizer against real Role/ClusterRole/binding objects: Kubernetes' matching rules and reasons.
import { MemoryBackend } from '@kemu/store';
import { silentLogger } from '@kemu/base';
import { R, type ClusterRole, type ClusterRoleBinding } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import type { UserInfo } from '../authn/user.ts';
import { Cacher } from '../watch/cacher.ts';
import { encodeObject, objectKey } from '../storage.ts';
import { RbacAuthorizer } from './rbac.ts';
import { rbacLookupsFromCacher } from './rbac-cacher.ts';
import { StaticRbacLookups } from './rbac-lookups.ts';
import type { Attributes } from './types.ts';
import { clusterRole, clusterRoleBinding as crb, group, role, roleBinding as rb, serviceAccount as sa, user } from './rbac-fixtures.ts';

const jane: UserInfo = { username: 'jane', groups: ['devs', 'system:authenticated'] };
const robot: UserInfo = { username: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'] };

function res(u: UserInfo, verb: string, resource: string, o: Partial<Attributes> = {}): Attributes {
  return { user: u, verb, resourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource, subresource: '', namespace: '', name: '', ...o };
}
function url(u: UserInfo, verb: string, path: string): Attributes {
  return { user: u, verb, resourceRequest: false, path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

function fixture(): { lookups: StaticRbacLookups; authz: RbacAuthorizer } {
  const lookups = new StaticRbacLookups(
    [role('team', 'pod-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] }])],
    [
      clusterRole('view-cm-one', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] }]),
      clusterRole('scaler', [{ verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] }]),
      clusterRole('health', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz/*'] }]),
      clusterRole('everything', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]),
    ],
    [
      rb('team', 'read-pods', 'Role', 'pod-reader', [user('someone-else'), sa('robot'), group('devs')]),
      rb('team', 'cm', 'ClusterRole', 'view-cm-one', [user('jane')]),
      rb('team', 'dangling', 'Role', 'missing-role', [user('jane')]),
    ],
    [
      crb('health-all', 'health', [group('system:authenticated')]),
      crb('scale', 'scaler', [sa('robot', 'team')]),
      crb('admins', 'everything', [group('admins')]),
    ],
  );
  return { lookups, authz: new RbacAuthorizer(lookups) };
}

describe('RbacAuthorizer.authorize', () => {
  it('allows through a RoleBinding in the request namespace, naming the binding, role and subject as Kubernetes', () => {
    const { authz } = fixture();
    expect(authz.authorize(res(jane, 'list', 'pods', { namespace: 'team' }))).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by RoleBinding "read-pods/team" of Role "pod-reader" to Group "devs"',
    });
    // The ServiceAccount subject without a namespace is the binding's namespace's.
    expect(authz.authorize(res(robot, 'get', 'pods', { namespace: 'team', name: 'p', subresource: 'log' })).reason).toBe(
      'RBAC: allowed by RoleBinding "read-pods/team" of Role "pod-reader" to ServiceAccount "robot/team"',
    );
    // Not in another namespace, nor cluster-wide.
    expect(authz.authorize(res(jane, 'list', 'pods', { namespace: 'other' })).decision).toBe('noOpinion');
    expect(authz.authorize(res(jane, 'list', 'pods')).decision).toBe('noOpinion');
    // pods/log is named; pods/exec is not.
    expect(authz.authorize(res(jane, 'get', 'pods', { namespace: 'team', name: 'p', subresource: 'exec' })).decision).not.toBe('allow');
  });

  it('ClusterRoleBindings apply everywhere; the reason names the ClusterRoleBinding', () => {
    const { authz } = fixture();
    const r = authz.authorize(res(robot, 'update', 'deployments', { apiGroup: 'apps', namespace: 'x', name: 'd', subresource: 'scale' }));
    expect(r).toEqual({ decision: 'allow', reason: 'RBAC: allowed by ClusterRoleBinding "scale" of ClusterRole "scaler" to ServiceAccount "robot/team"' });
    // "*/scale" matches the scale subresource of any resource, never the resource itself.
    expect(authz.authorize(res(robot, 'update', 'deployments', { apiGroup: 'apps', namespace: 'x', name: 'd' })).decision).toBe('noOpinion');
    const admin: UserInfo = { username: 'root', groups: ['admins'] };
    expect(authz.authorize(res(admin, 'delete', 'nodes', { name: 'n1' })).decision).toBe('allow');
    expect(authz.authorize(url(admin, 'post', '/anything')).decision).toBe('allow');
  });

  it('resourceNames restrict to the named objects: a request without a name (list, create) never matches', () => {
    const { authz } = fixture();
    const u: UserInfo = { username: 'jane', groups: [] };
    expect(authz.authorize(res(u, 'get', 'configmaps', { namespace: 'team', name: 'one' })).decision).toBe('allow');
    expect(authz.authorize(res(u, 'get', 'configmaps', { namespace: 'team', name: 'two' })).decision).toBe('noOpinion');
    expect(authz.authorize(res(u, 'get', 'configmaps', { namespace: 'team' })).decision).toBe('noOpinion');
  });

  it('non-resource URLs match exactly or by a trailing-* prefix', () => {
    const { authz } = fixture();
    expect(authz.authorize(url(jane, 'get', '/healthz')).decision).toBe('allow');
    expect(authz.authorize(url(jane, 'get', '/readyz/etcd')).decision).toBe('allow');
    expect(authz.authorize(url(jane, 'get', '/healthz/etcd')).decision).toBe('noOpinion');
    expect(authz.authorize(url(jane, 'post', '/healthz')).decision).toBe('noOpinion');
    expect(authz.authorize(url({ username: 'anon', groups: ['system:unauthenticated'] }, 'get', '/healthz')).decision).toBe('noOpinion');
  });

  it('a binding to a missing role gives no opinion, and the reason says what is missing', () => {
    const { authz } = fixture();
    const u: UserInfo = { username: 'jane', groups: [] };
    expect(authz.authorize(res(u, 'delete', 'secrets', { namespace: 'team', name: 's' }))).toEqual({
      decision: 'noOpinion',
      reason: 'RBAC: role.rbac.authorization.k8s.io "missing-role" not found',
    });
    const two = new RbacAuthorizer(new StaticRbacLookups([], [], [], [crb('a', 'foo', [user('x')]), crb('b', 'bar', [user('x')])]));
    expect(two.authorize(res({ username: 'x', groups: [] }, 'get', 'pods')).reason).toBe(
      'RBAC: [clusterrole.rbac.authorization.k8s.io "foo" not found, clusterrole.rbac.authorization.k8s.io "bar" not found]',
    );
    // The error does not stop a later binding from allowing.
    expect(authz.authorize(res(u, 'get', 'configmaps', { namespace: 'team', name: 'one' })).decision).toBe('allow');
  });

  it('sees new bindings once the lookups report a change', () => {
    const { lookups, authz } = fixture();
    const bob: UserInfo = { username: 'bob', groups: [] };
    expect(authz.authorize(res(bob, 'get', 'nodes', { name: 'n' })).decision).toBe('noOpinion');
    lookups.clusterRoleBindingsList.push(crb('bob-admin', 'everything', [user('bob')]));
    lookups.bump();
    expect(authz.authorize(res(bob, 'get', 'nodes', { name: 'n' })).reason).toBe('RBAC: allowed by ClusterRoleBinding "bob-admin" of ClusterRole "everything" to User "bob"');
  });

  it('reads roles live: a rule added to a bound role counts at once, with no index rebuild', () => {
    const { lookups, authz } = fixture();
    const u: UserInfo = { username: 'jane', groups: [] };
    expect(authz.authorize(res(u, 'get', 'configmaps', { namespace: 'team', name: 'two' })).decision).toBe('noOpinion');
    lookups.clusterRolesList[0]?.rules?.push({ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] });
    expect(authz.authorize(res(u, 'get', 'configmaps', { namespace: 'team', name: 'two' })).decision).toBe('allow');
  });

  it('a binding listing the user twice is named once, with its first matching subject', () => {
    const authz = new RbacAuthorizer(new StaticRbacLookups([], [clusterRole('r', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])], [], [crb('b', 'r', [group('devs'), user('jane')])]));
    expect(authz.authorize(res(jane, 'get', 'pods', { namespace: 'n', name: 'p' })).reason).toBe('RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to Group "devs"');
  });
});

describe('RbacAuthorizer.rulesFor', () => {
  it('lists cluster-wide and namespace rules, split into resource and non-resource rules, with resolution errors', () => {
    const { authz } = fixture();
    const r = authz.rulesFor({ username: 'jane', groups: ['devs', 'system:authenticated'] }, 'team');
    // RoleBindings in name order: cm, dangling (its role is missing), read-pods.
    expect(r.resourceRules).toEqual([
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] },
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: [] },
    ]);
    expect(r.nonResourceRules).toEqual([{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz/*'] }]);
    expect(r.incomplete).toBe(false);
    expect(r.evaluationError).toBe('role.rbac.authorization.k8s.io "missing-role" not found');
  });
});

describe('rbacLookupsFromCacher', () => {
  it('reads the watch cache and follows its changes', async () => {
    const backend = new MemoryBackend();
    const put = (r: typeof R.roles, o: ClusterRole | ClusterRoleBinding) => backend.create(objectKey(r, o.metadata.namespace, o.metadata.name ?? ''), encodeObject(o));
    await put(R.clusterroles, clusterRole('everything', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]));
    const cacher = new Cacher({ backend, logger: silentLogger() });
    const authz = new RbacAuthorizer(rbacLookupsFromCacher(cacher));
    expect(authz.authorize(res(jane, 'get', 'pods')).reason).toBe('RBAC: the watch cache is not ready');
    await cacher.start();
    try {
      expect(authz.authorize(res(jane, 'get', 'pods')).decision).toBe('noOpinion');
      const kv = await put(R.clusterrolebindings, crb('devs', 'everything', [group('devs')]));
      await cacher.waitFor(kv.modRevision);
      expect(authz.authorize(res(jane, 'get', 'pods')).reason).toBe('RBAC: allowed by ClusterRoleBinding "devs" of ClusterRole "everything" to Group "devs"');
    } finally {
      cacher.stop();
    }
  });
});
