// rbac.authorization.k8s.io/v1 (k8s.io/api/rbac/v1 generated.proto), as `kubectl create role|clusterrole|
// rolebinding|clusterrolebinding` send them. RoleRef and Subject are plain structs of strings; aggregationRule
// is a *struct, present exactly when set.
import { list, message, msg, str, strs } from '../schema.ts';
import { LabelSelector, ObjectMeta } from './meta.ts';

const metadata = msg('metadata', () => ObjectMeta);

export const PolicyRule = message({ 1: strs('verbs'), 2: strs('apiGroups'), 3: strs('resources'), 4: strs('resourceNames'), 5: strs('nonResourceURLs') });
export const AggregationRule = message({ 1: list('clusterRoleSelectors', () => LabelSelector) });
export const Role = message({ 1: metadata, 2: list('rules', () => PolicyRule) });
export const ClusterRole = message({ 1: metadata, 2: list('rules', () => PolicyRule), 3: msg('aggregationRule', () => AggregationRule) });
export const RoleRef = message({ 1: str('apiGroup'), 2: str('kind'), 3: str('name') });
export const Subject = message({ 1: str('kind'), 2: str('apiGroup'), 3: str('name'), 4: str('namespace') });
export const RoleBinding = message({ 1: metadata, 2: list('subjects', () => Subject), 3: msg('roleRef', () => RoleRef) });
export const ClusterRoleBinding = message({ 1: metadata, 2: list('subjects', () => Subject), 3: msg('roleRef', () => RoleRef) });
