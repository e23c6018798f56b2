// Builders of RBAC objects for tests and benchmarks (typed, with apiVersion and kind as a client sends them).
import { RBAC_GROUP as G, type ClusterRole, type ClusterRoleBinding, type PolicyRule, type Role, type RoleBinding, type Subject } from '@kemu/api';

export const clusterRole = (name: string, rules: PolicyRule[], extra: Partial<ClusterRole> = {}): ClusterRole => ({
  apiVersion: `${G}/v1`,
  kind: 'ClusterRole',
  metadata: { name },
  rules,
  ...extra,
});
export const role = (namespace: string, name: string, rules: PolicyRule[]): Role => ({ apiVersion: `${G}/v1`, kind: 'Role', metadata: { namespace, name }, rules });
export const user = (name: string): Subject => ({ kind: 'User', apiGroup: G, name });
export const group = (name: string): Subject => ({ kind: 'Group', apiGroup: G, name });
export const serviceAccount = (name: string, namespace?: string): Subject => ({ kind: 'ServiceAccount', name, ...(namespace ? { namespace } : {}) });
export const clusterRoleBinding = (name: string, roleName: string, subjects: Subject[]): ClusterRoleBinding => ({
  apiVersion: `${G}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: G, kind: 'ClusterRole', name: roleName },
  subjects,
});
export const roleBinding = (namespace: string, name: string, kind: 'Role' | 'ClusterRole', roleName: string, subjects: Subject[]): RoleBinding => ({
  apiVersion: `${G}/v1`,
  kind: 'RoleBinding',
  metadata: { namespace, name },
  roleRef: { apiGroup: G, kind, name: roleName },
  subjects,
});
