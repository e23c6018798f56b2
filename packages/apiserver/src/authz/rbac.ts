// The RBAC authorizer (plugin/pkg/auth/authorizer/rbac): ClusterRoleBindings first, then the RoleBindings of
// the request's namespace; the first rule of a binding that names the user and allows the request allows it,
// with Kubernetes' reason (`RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "z"`).
// Otherwise it has no opinion (RBAC never denies), and the reason carries the errors met on the way (a
// binding to a missing role). rulesFor answers SelfSubjectRulesReview; policyRulesFor and
// roleReferenceRules are the rule resolver escalation prevention uses.
import { errors, type PolicyRule, type RoleRef } from '@kemu/api';
import type { UserInfo } from '../authn/user.ts';
import { keysOf, SubjectIndex, type BindingHit } from './rbac-index.ts';
import { resolveRole, type RbacLookups } from './rbac-lookups.ts';
import { aggregateMessage, ruleAllows } from './rbac-rules.ts';
import type { Attributes, AuthorizationResult, Authorizer, NonResourceRule, ResourceRule, RulesResult } from './types.ts';

/** describeSubject: a ServiceAccount as "name/namespace" (the binding's namespace when the subject has none). */
function describeHit(h: BindingHit): string {
  const b = h.binding;
  const s = b.subjects[h.subjectIndex];
  const subject = !s
    ? ''
    : s.kind === 'ServiceAccount'
      ? `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || b.namespace}`)}`
      : `${s.kind} ${JSON.stringify(s.name)}`;
  const name = b.kind === 'RoleBinding' ? `${b.name}/${b.namespace}` : b.name;
  return `${b.kind} ${JSON.stringify(name)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${subject}`;
}

export interface PolicyRules {
  rules: PolicyRule[];
  /** Resolution errors (missing roles); the rules found are still valid, RBAC being purely additive. */
  errors: string[];
}

export class RbacAuthorizer implements Authorizer {
  readonly name = 'RBAC';
  private index: SubjectIndex | undefined;
  private indexRevision: string | number | undefined;

  constructor(private readonly lookups: RbacLookups) {}

  /** The subject index for the current bindings, rebuilt when the lookups report a change. */
  private current(): SubjectIndex {
    const rev = this.lookups.revision();
    if (!this.index || rev !== this.indexRevision) {
      this.index = new SubjectIndex(this.lookups);
      this.indexRevision = rev;
    }
    return this.index;
  }

  /** The bindings that apply, cluster-wide then in the namespace; visit returns false to stop. */
  private visit(user: UserInfo, namespace: string, visit: (h: BindingHit) => boolean): void {
    const index = this.current();
    const keys = keysOf(user);
    for (const h of index.hits(keys, '')) if (!visit(h)) return;
    if (namespace !== '') for (const h of index.hits(keys, namespace)) if (!visit(h)) return;
  }

  authorize(a: Attributes): AuthorizationResult {
    const errs: string[] = [];
    let allowedBy: BindingHit | undefined;
    try {
      this.visit(a.user, a.namespace, (h) => {
        const { rules, error } = resolveRole(this.lookups, h.binding.roleRef, h.binding.namespace);
        if (error !== undefined) errs.push(error);
        for (const rule of rules) {
          if (ruleAllows(a, rule)) {
            allowedBy = h;
            return false;
          }
        }
        return true;
      });
    } catch (e) {
      errs.push(e instanceof Error ? e.message : String(e));
    }
    if (allowedBy) return { decision: 'allow', reason: `RBAC: allowed by ${describeHit(allowedBy)}` };
    return { decision: 'noOpinion', reason: errs.length > 0 ? `RBAC: ${aggregateMessage(errs)}` : '' };
  }

  /** Every rule that applies to the user in the namespace (cluster-wide ones included), and the errors met. */
  policyRulesFor(user: UserInfo, namespace: string): PolicyRules {
    const out: PolicyRules = { rules: [], errors: [] };
    try {
      this.visit(user, namespace, (h) => {
        const { rules, error } = resolveRole(this.lookups, h.binding.roleRef, h.binding.namespace);
        if (error !== undefined) out.errors.push(error);
        out.rules.push(...rules);
        return true;
      });
    } catch (e) {
      out.errors.push(e instanceof Error ? e.message : String(e));
    }
    return out;
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const { rules, errors: errs } = this.policyRulesFor(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const r of rules) {
      if ((r.resources ?? []).length > 0)
        resourceRules.push({ verbs: [...(r.verbs ?? [])], apiGroups: [...(r.apiGroups ?? [])], resources: [...(r.resources ?? [])], resourceNames: [...(r.resourceNames ?? [])] });
      if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: [...(r.verbs ?? [])], nonResourceURLs: [...(r.nonResourceURLs ?? [])] });
    }
    return { resourceRules, nonResourceRules, incomplete: false, ...(errs.length > 0 ? { evaluationError: aggregateMessage(errs) } : {}) };
  }

  /** GetRoleReferenceRules: the rules of the role a binding in bindingNamespace ('' for cluster) refers to; NotFound as a lister's. */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): readonly PolicyRule[] {
    const { rules, error } = resolveRole(this.lookups, ref, bindingNamespace);
    if (error === undefined) return rules;
    if (ref.kind === 'Role') throw errors.notFound('role.rbac.authorization.k8s.io', ref.name);
    if (ref.kind === 'ClusterRole') throw errors.notFound('clusterrole.rbac.authorization.k8s.io', ref.name);
    throw errors.internal(error);
  }
}
