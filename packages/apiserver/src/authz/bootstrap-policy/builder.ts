// A compact way to write the bootstrap policy down. Lists are written space-separated and come out sorted,
// as Kubernetes' rule builder sorts them (so the objects equal the golden files field for field).
import { RBAC_API_VERSION, RBAC_GROUP, type ClusterRole, type ClusterRoleBinding, type PolicyRule, type Role, type RoleBinding, type Subject } from './types.ts';

export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';
export const BOOTSTRAPPING_VALUE = 'rbac-defaults';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

export const READ = 'get list watch';
export const READ_WRITE = 'get list watch create update patch delete deletecollection';
export const WRITE = 'create update patch delete deletecollection';
export const EVENTS_WRITE = 'create update patch';

const words = (s: string): string[] => s.split(' ').filter((w) => w !== '');
const sorted = (xs: string[]): string[] => [...new Set(xs)].sort();

/**
 * A resource rule. groups: one group, or several ('' is the core group); verbs and resources space-separated.
 * names: resourceNames, space-separated.
 */
export function rule(verbs: string, groups: string | readonly string[], resources: string, names?: string): PolicyRule {
  const r: PolicyRule = { verbs: sorted(words(verbs)), apiGroups: sorted(typeof groups === 'string' ? [groups] : [...groups]), resources: sorted(words(resources)) };
  if (names) r.resourceNames = sorted(words(names));
  return r;
}

/** A non-resource rule: urls space-separated. */
export function urls(verbs: string, paths: string): PolicyRule {
  return { verbs: sorted(words(verbs)), nonResourceURLs: sorted(words(paths)) };
}

/** The events rule every component has: core and events.k8s.io events, create/update/patch. */
export const eventsRule = (): PolicyRule => rule(EVENTS_WRITE, ['', 'events.k8s.io'], 'events');

function meta(name: string, labels: Record<string, string> = {}, namespace?: string) {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { [BOOTSTRAPPING_LABEL]: BOOTSTRAPPING_VALUE, ...labels },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

export function clusterRole(name: string, rules: PolicyRule[], labels?: Record<string, string>): ClusterRole {
  return { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: meta(name, labels), rules };
}

/** A ClusterRole whose rules the clusterrole-aggregation controller fills from roles labelled aggregateLabel=true. */
export function aggregatedClusterRole(name: string, aggregateLabel: string, labels?: Record<string, string>): ClusterRole {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRole',
    metadata: meta(name, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateLabel]: 'true' } }] },
  };
}

export function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { apiVersion: RBAC_API_VERSION, kind: 'Role', metadata: meta(name, {}, namespace) as Role['metadata'], rules };
}

export const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
export const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
export const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

/** A ClusterRoleBinding named after its role unless a name is given. */
export function clusterRoleBinding(roleName: string, subjects: Subject[], name = roleName): ClusterRoleBinding {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: roleName },
    subjects,
  };
}

/** A RoleBinding to a Role of the same namespace, named after it unless a name is given. */
export function roleBinding(namespace: string, roleName: string, subjects: Subject[], name = roleName): RoleBinding {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'RoleBinding',
    metadata: meta(name, {}, namespace) as RoleBinding['metadata'],
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: roleName },
    subjects,
  };
}
