// The bootstrap policy's objects: @kemu/api's RBAC types, with the name, apiVersion and kind always set.
import type { KubeObject, ObjectMeta } from '@kemu/api';

import { RBAC_GROUP, type AggregationRule, type PolicyRule, type RoleRef, type Subject } from '@kemu/api';

export { RBAC_GROUP };
export type { AggregationRule, PolicyRule, RoleRef, Subject };
export const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;

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
