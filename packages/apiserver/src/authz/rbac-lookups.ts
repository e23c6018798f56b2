// What the RBAC authorizer reads: the four RBAC kinds, from wherever the server keeps them (the watch cache
// in kube-apiserver: rbac-cacher.ts; plain arrays in tests and benchmarks). Objects handed out are shared
// and never mutated. A lookup may throw (e.g. the cache is not built yet): the authorizer then has no
// opinion and says why.
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef } from '@kemu/api';

export interface RbacLookups {
  /** Differs whenever a RoleBinding or ClusterRoleBinding changed (roles are read live, bindings through an index). */
  revision(): string | number;
  clusterRoleBindings(): Iterable<ClusterRoleBinding>;
  /** RoleBindings of every namespace. */
  roleBindings(): Iterable<RoleBinding>;
  clusterRole(name: string): ClusterRole | undefined;
  role(namespace: string, name: string): Role | undefined;
}

/** Lookups over fixed lists (tests, benchmarks); bump() after changing the arrays. */
export class StaticRbacLookups implements RbacLookups {
  private rev = 0;
  constructor(
    readonly roles: Role[] = [],
    readonly clusterRolesList: ClusterRole[] = [],
    readonly roleBindingsList: RoleBinding[] = [],
    readonly clusterRoleBindingsList: ClusterRoleBinding[] = [],
  ) {}
  bump(): void {
    this.rev++;
  }
  revision(): number {
    return this.rev;
  }
  clusterRoleBindings(): Iterable<ClusterRoleBinding> {
    return this.clusterRoleBindingsList;
  }
  roleBindings(): Iterable<RoleBinding> {
    return this.roleBindingsList;
  }
  clusterRole(name: string): ClusterRole | undefined {
    return this.clusterRolesList.find((r) => r.metadata.name === name);
  }
  role(namespace: string, name: string): Role | undefined {
    return this.roles.find((r) => r.metadata.namespace === namespace && r.metadata.name === name);
  }
}

function notFound(resource: string, name: string): string {
  return `${resource}.rbac.authorization.k8s.io "${name}" not found`;
}

/** GetRoleReferenceRules: the referenced role's rules, or the error a lister would give. */
export function resolveRole(lookups: RbacLookups, ref: RoleRef, bindingNamespace: string): { rules: readonly PolicyRule[]; error?: string } {
  switch (ref?.kind) {
    case 'Role': {
      const role = bindingNamespace === '' ? undefined : lookups.role(bindingNamespace, ref.name);
      return role ? { rules: role.rules ?? [] } : { rules: [], error: notFound('role', ref.name) };
    }
    case 'ClusterRole': {
      const role = lookups.clusterRole(ref.name);
      return role ? { rules: role.rules ?? [] } : { rules: [], error: notFound('clusterrole', ref.name) };
    }
    default:
      return { rules: [], error: `unsupported role reference kind: ${JSON.stringify(ref?.kind ?? '')}` };
  }
}
