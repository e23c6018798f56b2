// RBAC escalation prevention (pkg/registry/rbac/*/policybased): a Role or ClusterRole may be written only by
// a user who already holds every rule in it (ConfirmNoEscalation) or may `escalate` it; a binding only by a
// user who holds every rule of the role it refers to or may `bind` that role. system:masters always passes
// (the apiserver's own loopback identity is in it); so does a write with no user (no authentication ran, as
// on --insecure-port). Refusals are Kubernetes' Forbidden errors, word for word.
import { qualifiedResource, R, RBAC_GROUP, StatusError, type KubeObject, type PolicyRule, type ResourceInfo, type RoleRef } from '@kemu/api';
import { SYSTEM_MASTERS, type UserInfo } from '../authn/user.ts';
import type { GuardedWrite } from '../registry/registry.ts';
import { jsonEqual } from '../validation/field.ts';
import { covers, describeMissing } from './rbac-covers.ts';
import type { PolicyRules } from './rbac.ts';
import { aggregateMessage, goQuotedList } from './rbac-rules.ts';
import type { Attributes, AuthorizationResult } from './types.ts';

export interface RbacWrite {
  operation: 'CREATE' | 'UPDATE';
  resource: ResourceInfo;
  /** The request's namespace ('' for ClusterRoles and ClusterRoleBindings). */
  namespace: string;
  object: KubeObject;
  oldObject?: KubeObject;
  user: UserInfo | undefined;
}

export interface EscalationDeps {
  /** The rule resolver (RbacAuthorizer: policyRulesFor, roleReferenceRules). */
  resolver: {
    policyRulesFor(user: UserInfo, namespace: string): PolicyRules;
    roleReferenceRules(ref: RoleRef, bindingNamespace: string): readonly PolicyRule[];
  };
  /** The server's whole authorizer chain, asked whether the user may `escalate` a role or `bind` one. */
  authorize(a: Attributes): Promise<AuthorizationResult> | AuthorizationResult;
}

const RBAC_KINDS = new Set<ResourceInfo>([R.roles, R.clusterroles, R.rolebindings, R.clusterrolebindings]);

/** rbac.NewRule("*").Groups("*").Resources("*") and rbac.NewRule("*").URLs("*"): what an aggregationRule needs. */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** Whether the RBAC escalation rules apply to writes of this resource. */
export function guardsResource(r: ResourceInfo): boolean {
  return RBAC_KINDS.has(r);
}

function forbidden(r: ResourceInfo, name: string, message: string): StatusError {
  return new StatusError('Forbidden', `${qualifiedResource(r)} "${name}" is forbidden: ${message}`, { name, group: r.group, kind: r.plural });
}

/** IsOnlyMutatingGCFields: the update changes nothing but ownerReferences and finalizers (what the garbage collector writes). */
function onlyGCFields(obj: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, selfLink: _s, resourceVersion: _r, managedFields: _m, ...meta } = o.metadata as Record<string, unknown>;
    return { ...o, metadata: meta };
  };
  return jsonEqual(strip(obj), strip(old));
}

async function allowed(deps: EscalationDeps, a: Omit<Attributes, 'path' | 'subresource' | 'resourceRequest'>): Promise<boolean> {
  const r = await deps.authorize({ ...a, path: '', subresource: '', resourceRequest: true });
  return r.decision === 'allow';
}

/** ConfirmNoEscalation: undefined when the user holds every rule, else the message Kubernetes gives. */
function confirmNoEscalation(deps: EscalationDeps, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owner = deps.resolver.policyRulesFor(user, namespace);
  const { covered, missing } = covers(owner.rules, rules);
  if (covered) return undefined;
  let msg = `user ${JSON.stringify(user.username)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${describeMissing(missing).join('\n')}`;
  if (owner.errors.length > 0) msg += `; resolution errors: [${aggregateMessage(owner.errors)}]`;
  return msg;
}

const rulesOf = (o: KubeObject | undefined): PolicyRule[] => (Array.isArray(o?.rules) ? (o.rules as PolicyRule[]) : []);
const hasAggregationRule = (o: KubeObject | undefined): boolean => {
  const sel = (o?.aggregationRule as { clusterRoleSelectors?: unknown } | undefined)?.clusterRoleSelectors;
  return Array.isArray(sel) && sel.length > 0;
};

/**
 * Refuses (throws a Forbidden or NotFound StatusError) a create or update of a Role, ClusterRole, RoleBinding or
 * ClusterRoleBinding that would grant permissions the user does not hold; other resources pass untouched.
 */
export async function checkRbacEscalation(w: RbacWrite, deps: EscalationDeps): Promise<void> {
  const r = w.resource;
  if (!RBAC_KINDS.has(r) || !w.user) return;
  const user = w.user;
  if (user.groups.includes(SYSTEM_MASTERS)) return;
  const name = w.object.metadata.name ?? '';
  const namespace = r.namespaced ? w.namespace : '';
  if (w.operation === 'UPDATE' && w.oldObject && onlyGCFields(w.object, w.oldObject)) return;

  if (r === R.roles || r === R.clusterroles) {
    // RoleEscalationAuthorized: the request's own attributes with the escalate verb (no name on a create).
    const escalate = { user, verb: 'escalate', apiGroup: RBAC_GROUP, apiVersion: '*', resource: r.plural, namespace, name: w.operation === 'CREATE' ? '' : name };
    if (await allowed(deps, escalate)) return;
    const msg = confirmNoEscalation(deps, user, namespace, rulesOf(w.object));
    if (msg !== undefined) throw forbidden(r, name, msg);
    // An aggregationRule can gather anything and keep a role from being tightened: it takes * on *.
    if (r === R.clusterroles && (hasAggregationRule(w.object) || (w.operation === 'UPDATE' && hasAggregationRule(w.oldObject)))) {
      if (confirmNoEscalation(deps, user, namespace, FULL_AUTHORITY) !== undefined) throw forbidden(r, name, 'must have cluster-admin privileges to use the aggregationRule');
    }
    return;
  }

  const ref = (w.object.roleRef ?? {}) as RoleRef;
  // BindingAuthorized: `bind` on the referenced role by name, in the binding's namespace ('' for cluster bindings).
  if (ref.kind === 'Role' || ref.kind === 'ClusterRole') {
    const bind = { user, verb: 'bind', apiGroup: ref.apiGroup ?? '', apiVersion: '*', resource: ref.kind === 'Role' ? 'roles' : 'clusterroles', namespace, name: ref.name ?? '' };
    if (await allowed(deps, bind)) return;
  }
  const rules = deps.resolver.roleReferenceRules(ref, namespace);
  const msg = confirmNoEscalation(deps, user, namespace, rules);
  if (msg !== undefined) throw forbidden(r, name, msg);
}

/** The registry's writeGuard (RegistryOptions.writeGuard) for RBAC: checkRbacEscalation on the four RBAC kinds. */
export function rbacWriteGuard(deps: EscalationDeps): (w: GuardedWrite) => Promise<void> {
  return async (w) => {
    if (!RBAC_KINDS.has(w.resource)) return;
    await checkRbacEscalation({ operation: w.operation, resource: w.resource, namespace: w.namespace, object: w.object, ...(w.oldObject ? { oldObject: w.oldObject } : {}), user: w.userInfo }, deps);
  };
}
