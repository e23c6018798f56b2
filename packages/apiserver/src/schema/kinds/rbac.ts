// rbac.authorization.k8s.io/v1 (k8s.io/api/rbac/v1 generated.proto and types.go), as `kubectl create role|
// clusterrole|rolebinding|clusterrolebinding` send them. Every list is atomic; RoleRef and Subject are atomic
// structs; aggregationRule is a *struct, present exactly when set.
import { list, msg, str, strs, struct } from '../build.ts';
import { LabelSelector, ObjectMeta } from './meta.ts';

const RBAC = 'io.k8s.api.rbac.v1.';

const metadata = msg('metadata', () => ObjectMeta, 'Standard object metadata: name, labels, annotations, owners and more.');

export const PolicyRule = struct(`${RBAC}PolicyRule`, 'Allows some verbs on some resources or non-resource URLs; a rule only grants, never denies.', {
  1: strs('verbs', 'Verbs allowed (get, list, watch, create, update, patch, delete…); * means all.'),
  2: strs('apiGroups', 'API groups of the resources; "" is the core group and * means all.'),
  3: strs('resources', 'Resources the rule covers (pods, pods/log); * means all.'),
  4: strs('resourceNames', 'Object names the rule is limited to; empty means any name.'),
  5: strs('nonResourceURLs', 'URL paths such as /healthz or /api/*; only in ClusterRoles, and then without resources.'),
});

export const AggregationRule = struct(`${RBAC}AggregationRule`, "Builds a ClusterRole's rules from the rules of other ClusterRoles.", {
  1: list('clusterRoleSelectors', () => LabelSelector, 'ClusterRoles matching any of these selectors have their rules added; the controller owns rules.'),
});

export const Role = struct(`${RBAC}Role`, 'A set of permissions within one namespace, granted by a RoleBinding.', {
  1: metadata,
  2: list('rules', () => PolicyRule, 'The permissions the role grants.'),
});

export const ClusterRole = struct(`${RBAC}ClusterRole`, 'A set of permissions cluster-wide or, through a RoleBinding, in one namespace.', {
  1: metadata,
  2: list('rules', () => PolicyRule, 'The permissions the role grants; filled in by the controller when aggregationRule is set.'),
  3: msg('aggregationRule', () => AggregationRule, 'Makes this role the union of the ClusterRoles it selects.'),
});

export const RoleRef = struct(
  `${RBAC}RoleRef`,
  'The Role or ClusterRole a binding grants; cannot be changed once set.',
  {
    1: str('apiGroup', 'Group of the role: rbac.authorization.k8s.io.'),
    2: str('kind', 'Role or ClusterRole.'),
    3: str('name', 'Name of the role.'),
  },
  { atomic: true },
);

export const Subject = struct(
  `${RBAC}Subject`,
  'Who a binding grants its role to: a user, a group or a service account.',
  {
    1: str('kind', 'User, Group or ServiceAccount.'),
    2: str('apiGroup', 'rbac.authorization.k8s.io for User and Group, "" for ServiceAccount.'),
    3: str('name', 'Name of the user, group or service account.'),
    4: str('namespace', 'Namespace of the service account; empty for users and groups.'),
  },
  { atomic: true },
);

export const RoleBinding = struct(`${RBAC}RoleBinding`, "Grants a Role's or ClusterRole's permissions to subjects within one namespace.", {
  1: metadata,
  2: list('subjects', () => Subject, 'Users, groups and service accounts that get the role.'),
  3: msg('roleRef', () => RoleRef, 'The role granted: a Role in this namespace or a ClusterRole.'),
});

export const ClusterRoleBinding = struct(`${RBAC}ClusterRoleBinding`, "Grants a ClusterRole's permissions to subjects in every namespace.", {
  1: metadata,
  2: list('subjects', () => Subject, 'Users, groups and service accounts that get the role.'),
  3: msg('roleRef', () => RoleRef, 'The ClusterRole granted.'),
});
