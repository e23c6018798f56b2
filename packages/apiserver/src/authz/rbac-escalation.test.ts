// Escalation prevention with real Role/ClusterRole/binding objects: holding every rule, `escalate` and `bind`
// let a write through; anything else is refused with Kubernetes' Forbidden text.
import { R, StatusError, type ClusterRoleBinding, type KubeObject, type PolicyRule } from '@kemu/api';
import { MemoryBackend } from '@kemu/store';
import { describe, expect, it } from 'vitest';
import type { UserInfo } from '../authn/user.ts';
import { realClock } from '../clock.ts';
import { loadExtensions } from '../extensions.ts';
import { Registry } from '../registry/registry.ts';
import { RbacAuthorizer } from './rbac.ts';
import { checkRbacEscalation, rbacWriteGuard, type RbacWrite } from './rbac-escalation.ts';
import { StaticRbacLookups } from './rbac-lookups.ts';
import { clusterRole, clusterRoleBinding as crb, role, roleBinding as rb, user } from './rbac-fixtures.ts';

const G = 'rbac.authorization.k8s.io';

const jane: UserInfo = { username: 'jane', groups: ['system:authenticated'] };
const podsGet: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };

function setup() {
  const lookups = new StaticRbacLookups(
    [role('team', 'pod-getter', [podsGet])],
    [
      clusterRole('pod-getter', [podsGet]),
      clusterRole('pod-admin', [{ verbs: ['get', 'list', 'delete'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] }]),
      clusterRole('role-writer', [{ verbs: ['create', 'update'], apiGroups: [G], resources: ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'] }]),
      clusterRole('escalator', [{ verbs: ['escalate'], apiGroups: [G], resources: ['roles'] }]),
      clusterRole('binder', [{ verbs: ['bind'], apiGroups: [G], resources: ['clusterroles'], resourceNames: ['pod-admin'] }]),
      clusterRole('everything', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]),
    ],
    [rb('team', 'jane-gets-pods', 'Role', 'pod-getter', [user('jane')])],
    [crb('jane-writes-roles', 'role-writer', [user('jane')])],
  );
  const authz = new RbacAuthorizer(lookups);
  const deps = { resolver: authz, authorize: (a: Parameters<RbacAuthorizer['authorize']>[0]) => authz.authorize(a) };
  const check = (w: Omit<RbacWrite, 'user'> & { user?: UserInfo }) => checkRbacEscalation({ user: jane, ...w }, deps);
  const grant = (b: ClusterRoleBinding) => {
    lookups.clusterRoleBindingsList.push(b);
    lookups.bump();
  };
  return { lookups, authz, deps, check, grant };
}

async function refusal(p: Promise<void>): Promise<StatusError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof StatusError)) throw new Error(`expected a StatusError, got ${String(e)}`);
  return e;
}

describe('checkRbacEscalation: roles', () => {
  it('lets a user create a Role with rules they hold in that namespace', async () => {
    const { check } = setup();
    await expect(check({ operation: 'CREATE', resource: R.roles, namespace: 'team', object: role('team', 'mine', [podsGet]) })).resolves.toBeUndefined();
  });

  it('refuses rules not held, listing them compacted as Kubernetes does', async () => {
    const { check } = setup();
    const e = await refusal(
      check({
        operation: 'CREATE',
        resource: R.clusterroles,
        namespace: '',
        object: clusterRole('x', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'secrets'] }, { verbs: ['get'], nonResourceURLs: ['/metrics'] }]),
      }),
    );
    expect(e.code).toBe(403);
    expect(e.reason).toBe('Forbidden');
    expect(e.message).toBe(
      'clusterroles.rbac.authorization.k8s.io "x" is forbidden: user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}\n' +
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    );
    expect(e.details).toEqual({ name: 'x', group: G, kind: 'clusterroles' });
  });

  it('a namespaced grant does not cover a cluster-wide role', async () => {
    const { check } = setup();
    const e = await refusal(check({ operation: 'CREATE', resource: R.clusterroles, namespace: '', object: clusterRole('x', [podsGet]) }));
    expect(e.message).toContain('{APIGroups:[""], Resources:["pods"], Verbs:["get"]}');
  });

  it('escalate on roles lets anything through; system:masters always passes; no user (no authentication) passes', async () => {
    const { check, grant } = setup();
    const big = role('team', 'big', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    await expect(check({ operation: 'CREATE', resource: R.roles, namespace: 'team', object: big })).rejects.toThrow(/attempting to grant/);
    await expect(check({ operation: 'CREATE', resource: R.roles, namespace: 'team', object: big, user: { username: 'root', groups: ['system:masters'] } })).resolves.toBeUndefined();
    await expect(checkRbacEscalation({ operation: 'CREATE', resource: R.roles, namespace: 'team', object: big, user: undefined }, setup().deps)).resolves.toBeUndefined();
    grant(crb('jane-escalates', 'escalator', [user('jane')]));
    await expect(check({ operation: 'CREATE', resource: R.roles, namespace: 'team', object: big })).resolves.toBeUndefined();
    // escalate on roles is not escalate on clusterroles.
    await expect(check({ operation: 'CREATE', resource: R.clusterroles, namespace: '', object: clusterRole('big', [podsGet]) })).rejects.toThrow(/attempting to grant/);
  });

  it('an aggregationRule needs cluster-admin even with no rules', async () => {
    const { check, grant } = setup();
    const agg = clusterRole('agg', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } });
    const e = await refusal(check({ operation: 'CREATE', resource: R.clusterroles, namespace: '', object: agg }));
    expect(e.message).toBe('clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule');
    grant(crb('jane-admin', 'everything', [user('jane')]));
    await expect(check({ operation: 'CREATE', resource: R.clusterroles, namespace: '', object: agg })).resolves.toBeUndefined();
  });

  it('an update that only changes finalizers or ownerReferences passes', async () => {
    const { check } = setup();
    const old = clusterRole('big', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    const next = structuredClone(old) as KubeObject;
    next.metadata.finalizers = ['example.com/keep'];
    await expect(check({ operation: 'UPDATE', resource: R.clusterroles, namespace: '', object: next, oldObject: old })).resolves.toBeUndefined();
    next.metadata.labels = { changed: 'yes' };
    await expect(check({ operation: 'UPDATE', resource: R.clusterroles, namespace: '', object: next, oldObject: old })).rejects.toThrow(/attempting to grant/);
  });
});

describe('checkRbacEscalation: bindings', () => {
  it('lets a user bind a role whose rules they hold, and refuses one they do not', async () => {
    const { check } = setup();
    await expect(check({ operation: 'CREATE', resource: R.rolebindings, namespace: 'team', object: rb('team', 'b', 'ClusterRole', 'pod-getter', [user('bob')]) })).resolves.toBeUndefined();
    const e = await refusal(check({ operation: 'CREATE', resource: R.rolebindings, namespace: 'team', object: rb('team', 'b', 'ClusterRole', 'pod-admin', [user('bob')]) }));
    expect(e.message).toBe(
      'rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["list" "delete"]}\n' +
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}',
    );
  });

  it('bind on the named role lets it through; a missing role is NotFound as a lister says it', async () => {
    const { check, grant } = setup();
    grant(crb('jane-binds', 'binder', [user('jane')]));
    await expect(check({ operation: 'CREATE', resource: R.clusterrolebindings, namespace: '', object: crb('b', 'pod-admin', [user('bob')]) })).resolves.toBeUndefined();
    await expect(check({ operation: 'CREATE', resource: R.clusterrolebindings, namespace: '', object: crb('b', 'everything', [user('bob')]) })).rejects.toThrow(/attempting to grant/);
    const e = await refusal(check({ operation: 'CREATE', resource: R.clusterrolebindings, namespace: '', object: crb('b', 'nope', [user('bob')]) }));
    expect(e.code).toBe(404);
    expect(e.message).toBe('clusterrole.rbac.authorization.k8s.io "nope" not found');
  });
});

describe('rbacWriteGuard in the registry', () => {
  it('refuses the create before it is stored, and lets other kinds through', async () => {
    const { deps } = setup();
    const backend = new MemoryBackend();
    const registry = new Registry({ backend, clock: realClock, ext: loadExtensions(), writeGuard: rbacWriteGuard(deps) });
    await expect(registry.create(R.clusterroles, clusterRole('x', [{ verbs: ['delete'], apiGroups: [''], resources: ['nodes'] }]), { userInfo: jane })).rejects.toThrow(
      /clusterroles.rbac.authorization.k8s.io "x" is forbidden/,
    );
    expect(await backend.get('/registry/clusterroles.rbac.authorization.k8s.io/x')).toBeUndefined();
    const created = await registry.create(R.roles, role('team', 'ok', [podsGet]), { userInfo: jane });
    expect(created.metadata.resourceVersion).toBeDefined();
    const cm = await registry.create(R.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'team', name: 'c' } }, { userInfo: jane });
    expect(cm.metadata.name).toBe('c');
    // An update adding a rule jane lacks is refused too.
    const next = structuredClone(created);
    next.rules = [podsGet, { verbs: ['delete'], apiGroups: [''], resources: ['pods'] }];
    await expect(registry.update(R.roles, 'team', 'ok', next, { userInfo: jane })).rejects.toThrow(/Verbs:\["delete"\]/);
  });
});
