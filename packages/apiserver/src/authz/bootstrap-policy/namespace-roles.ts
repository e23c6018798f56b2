// The Roles and RoleBindings Kubernetes bootstraps inside kube-system and kube-public (namespace_policy.go,
// golden files testdata/namespace-roles.yaml and namespace-role-bindings.yaml).
import { READ, eventsRule, role, roleBinding, rule, serviceAccount, user } from './builder.ts';
import { KUBE_CONTROLLER_MANAGER_USER, KUBE_SCHEDULER_USER } from './cluster-role-bindings.ts';
import { CONTROLLER_ROLE_PREFIX } from './controller-roles.ts';
import type { Role, RoleBinding } from './types.ts';

const SYSTEM = 'kube-system';
const PUBLIC = 'kube-public';
const LEADER_ELECTION = 'create get list update watch';

function leaderLocking(component: string): Role {
  return role(SYSTEM, `system::leader-locking-${component}`, [
    rule('watch', '', 'configmaps'),
    rule('get update', '', 'configmaps', component),
    rule(LEADER_ELECTION, 'coordination.k8s.io', 'leases'),
    rule(LEADER_ELECTION, 'coordination.k8s.io', 'leasecandidates'),
  ]);
}

export function namespaceRoles(): Role[] {
  return [
    // The configmap where the apiserver publishes its client-CA and request-header settings.
    role(SYSTEM, 'extension-apiserver-authentication-reader', [rule(READ, '', 'configmaps', 'extension-apiserver-authentication')]),
    role(SYSTEM, `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, [rule(READ, '', 'secrets')]),
    role(SYSTEM, `${CONTROLLER_ROLE_PREFIX}cloud-provider`, [rule('create get list watch', '', 'configmaps')]),
    role(SYSTEM, `${CONTROLLER_ROLE_PREFIX}token-cleaner`, [rule('get list watch delete', '', 'secrets'), eventsRule()]),
    leaderLocking('kube-controller-manager'),
    leaderLocking('kube-scheduler'),
    role(PUBLIC, `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, [rule(READ, '', 'configmaps'), rule('update', '', 'configmaps', 'cluster-info'), eventsRule()]),
  ];
}

export function namespaceRoleBindings(): RoleBinding[] {
  return [
    roleBinding(
      SYSTEM,
      'extension-apiserver-authentication-reader',
      [user(KUBE_CONTROLLER_MANAGER_USER), user(KUBE_SCHEDULER_USER)],
      'system::extension-apiserver-authentication-reader',
    ),
    roleBinding(SYSTEM, 'system::leader-locking-kube-controller-manager', [user(KUBE_CONTROLLER_MANAGER_USER), serviceAccount(SYSTEM, 'kube-controller-manager')]),
    roleBinding(SYSTEM, 'system::leader-locking-kube-scheduler', [user(KUBE_SCHEDULER_USER), serviceAccount(SYSTEM, 'kube-scheduler')]),
    roleBinding(SYSTEM, `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, [serviceAccount(SYSTEM, 'bootstrap-signer')]),
    roleBinding(SYSTEM, `${CONTROLLER_ROLE_PREFIX}cloud-provider`, [serviceAccount(SYSTEM, 'cloud-provider')]),
    roleBinding(SYSTEM, `${CONTROLLER_ROLE_PREFIX}token-cleaner`, [serviceAccount(SYSTEM, 'token-cleaner')]),
    roleBinding(PUBLIC, `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, [serviceAccount(SYSTEM, 'bootstrap-signer')]),
  ];
}
