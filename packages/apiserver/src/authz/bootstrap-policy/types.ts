// Minimal local shapes of the rbac.authorization.k8s.io/v1 kinds the bootstrap policy is made of (the full
// typed objects live in @kemu/api once they land; these stay structurally compatible with them).
import type { KubeObject, LabelSelector, ObjectMeta } from '@kemu/api';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;

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

export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: 'ClusterRole' | 'Role';
  name: string;
}

interface Named extends KubeObject {
  metadata: ObjectMeta & { name: string };
}

export interface ClusterRole extends Named {
  apiVersion: typeof RBAC_API_VERSION;
  kind: 'ClusterRole';
  rules?: PolicyRule[];
  aggregationRule?: AggregationRule;
}

export interface Role extends Named {
  apiVersion: typeof RBAC_API_VERSION;
  kind: 'Role';
  metadata: ObjectMeta & { name: string; namespace: string };
  rules?: PolicyRule[];
}

export interface ClusterRoleBinding extends Named {
  apiVersion: typeof RBAC_API_VERSION;
  kind: 'ClusterRoleBinding';
  subjects?: Subject[];
  roleRef: RoleRef;
}

export interface RoleBinding extends Named {
  apiVersion: typeof RBAC_API_VERSION;
  kind: 'RoleBinding';
  metadata: ObjectMeta & { name: string; namespace: string };
  subjects?: Subject[];
  roleRef: RoleRef;
}
