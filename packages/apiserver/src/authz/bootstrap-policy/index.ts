// Kubernetes' RBAC bootstrap policy as data: what the apiserver creates and reconciles at start-up.
import { clusterRoleBindings } from './cluster-role-bindings.ts';
import { clusterRoles } from './cluster-roles.ts';
import { controllerRoleBindings, controllerRoles } from './controller-roles.ts';
import { namespaceRoleBindings, namespaceRoles } from './namespace-roles.ts';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from './types.ts';

export interface BootstrapPolicy {
  clusterRoles: ClusterRole[];
  clusterRoleBindings: ClusterRoleBinding[];
  roles: Role[];
  roleBindings: RoleBinding[];
}

/** A fresh copy of the whole policy (callers may mutate it). */
export function bootstrapPolicy(): BootstrapPolicy {
  return {
    clusterRoles: [...clusterRoles(), ...controllerRoles()],
    clusterRoleBindings: [...clusterRoleBindings(), ...controllerRoleBindings()],
    roles: namespaceRoles(),
    roleBindings: namespaceRoleBindings(),
  };
}

export * from './types.ts';
export { AUTOUPDATE_ANNOTATION, BOOTSTRAPPING_LABEL, BOOTSTRAPPING_VALUE } from './builder.ts';
export { AGGREGATE_TO_ADMIN, AGGREGATE_TO_EDIT, AGGREGATE_TO_VIEW } from './cluster-roles.ts';
export { CONTROLLER_ROLE_NAMES, CONTROLLER_ROLE_PREFIX } from './controller-roles.ts';
