// rbac.authorization.k8s.io/v1: Role, ClusterRole (with aggregationRule), RoleBinding, ClusterRoleBinding.
import type { KubeObject, LabelSelector } from './meta.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** "*" in verbs, apiGroups, resources and nonResourceURLs means all (rbacv1.VerbAll, APIGroupAll…). */
export const RBAC_ALL = '*';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface AggregationRule {
  clusterRoleSelectors?: LabelSelector[];
}

export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: AggregationRule;
}

export type SubjectKind = 'User' | 'Group' | 'ServiceAccount';

export interface Subject {
  kind: SubjectKind | string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: 'Role' | 'ClusterRole' | string;
  name: string;
}

export interface RoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}

export interface ClusterRoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}
