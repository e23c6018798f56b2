// rbac.authorization.k8s.io/v1 (k8s.io/api/rbac/v1 generated.proto), as `kubectl create role|clusterrole|
// rolebinding|clusterrolebinding` send them. RoleRef and Subject are plain structs of strings; aggregationRule
// is a *struct, present exactly when set.
import { list, msg, str, strs, struct } from '../build.ts';
import { LabelSelector, ObjectMeta } from './meta.ts';

const metadata = msg('metadata', () => ObjectMeta);

export const PolicyRule = struct('io.k8s.api.rbac.v1.PolicyRule', '', { 1: strs('verbs'), 2: strs('apiGroups'), 3: strs('resources'), 4: strs('resourceNames'), 5: strs('nonResourceURLs') });
export const AggregationRule = struct('io.k8s.api.rbac.v1.AggregationRule', '', { 1: list('clusterRoleSelectors', () => LabelSelector) });
export const Role = struct('io.k8s.api.rbac.v1.Role', '', { 1: metadata, 2: list('rules', () => PolicyRule) });
export const ClusterRole = struct('io.k8s.api.rbac.v1.ClusterRole', '', { 1: metadata, 2: list('rules', () => PolicyRule), 3: msg('aggregationRule', () => AggregationRule) });
export const RoleRef = struct('io.k8s.api.rbac.v1.RoleRef', '', { 1: str('apiGroup'), 2: str('kind'), 3: str('name') });
export const Subject = struct('io.k8s.api.rbac.v1.Subject', '', { 1: str('kind'), 2: str('apiGroup'), 3: str('name'), 4: str('namespace') });
export const RoleBinding = struct('io.k8s.api.rbac.v1.RoleBinding', '', { 1: metadata, 2: list('subjects', () => Subject), 3: msg('roleRef', () => RoleRef) });
export const ClusterRoleBinding = struct('io.k8s.api.rbac.v1.ClusterRoleBinding', '', { 1: metadata, 2: list('subjects', () => Subject), 3: msg('roleRef', () => RoleRef) });
