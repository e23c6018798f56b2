// Kubernetes' union authorizer: the members are asked in order and the first allow or deny decides (with that
// member's reason); when all have no opinion their reasons are joined with newlines. Rules are the members'
// rules together; a member that cannot list rules makes the answer incomplete.
import type { UserInfo } from '../authn/user.ts';
import type { Attributes, AuthorizationResult, Authorizer, NonResourceRule, ResourceRule, RulesResult } from './types.ts';

/** utilerrors.NewAggregate(...).Error(): one message as is, several de-duplicated in brackets. */
export function aggregateMessage(messages: readonly string[]): string | undefined {
  const unique = [...new Set(messages)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

function withError(r: AuthorizationResult, evaluationError: string | undefined): AuthorizationResult {
  return evaluationError === undefined ? { decision: r.decision, reason: r.reason } : { decision: r.decision, reason: r.reason, evaluationError };
}

/** The rules of members that can list them; incomplete when one cannot or says so. */
export async function unionRulesFor(members: readonly Authorizer[], user: UserInfo, namespace: string): Promise<RulesResult> {
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  const errs: string[] = [];
  let incomplete = false;
  for (const m of members) {
    if (!m.rulesFor) {
      incomplete = true;
      continue;
    }
    const r = await m.rulesFor(user, namespace);
    if (r.incomplete) incomplete = true;
    if (r.evaluationError) errs.push(r.evaluationError);
    resourceRules.push(...r.resourceRules);
    nonResourceRules.push(...r.nonResourceRules);
  }
  const evaluationError = aggregateMessage(errs);
  return evaluationError === undefined ? { resourceRules, nonResourceRules, incomplete } : { resourceRules, nonResourceRules, incomplete, evaluationError };
}

export async function unionAuthorize(members: readonly Authorizer[], a: Attributes): Promise<AuthorizationResult> {
  const errs: string[] = [];
  const reasons: string[] = [];
  for (const m of members) {
    const r = await m.authorize(a);
    if (r.evaluationError) errs.push(r.evaluationError);
    if (r.reason !== '') reasons.push(r.reason);
    if (r.decision !== 'noOpinion') return withError(r, r.evaluationError || undefined);
  }
  return withError({ decision: 'noOpinion', reason: reasons.join('\n') }, aggregateMessage(errs));
}

export function unionAuthorizer(members: readonly Authorizer[]): Authorizer {
  return {
    name: members.map((m) => m.name).join(','),
    authorize: (a) => unionAuthorize(members, a),
    rulesFor: (user, namespace) => unionRulesFor(members, user, namespace),
  };
}
