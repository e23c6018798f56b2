// What the authorization stage does with a decision, as Kubernetes' WithAuthorization filter: an allow passes
// (even with an evaluation error, which RBAC may report and still allow); otherwise an evaluation error is a
// plain-text 500, and anything else the Forbidden Status. The audit annotations say which.
import type { StatusError } from '@kemu/api';
import { goQuote } from '@kemu/base';
import { forbiddenError, sanitize } from './forbidden.ts';
import type { Attributes, AuthorizationResult } from './types.ts';

export const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION = 'authorization.k8s.io/reason';

export type AuthorizationOutcome =
  | { kind: 'allow'; annotations: Record<string, string> }
  | { kind: 'forbidden'; error: StatusError; annotations: Record<string, string> }
  /** responsewriters.InternalError (http.Error): text/plain; charset=utf-8, nosniff, status 500. */
  | { kind: 'error'; code: 500; text: string; annotations: Record<string, string> };

/** requestURI is the path and query as the client sent them (Go's %q of req.RequestURI). */
export function authorizationOutcome(result: AuthorizationResult, a: Attributes, requestURI: string): AuthorizationOutcome {
  if (result.decision === 'allow') return { kind: 'allow', annotations: { [DECISION_ANNOTATION]: 'allow', [REASON_ANNOTATION]: result.reason } };
  if (result.evaluationError) {
    const text = sanitize(`Internal Server Error: ${goQuote(requestURI)}: ${result.evaluationError}`);
    return { kind: 'error', code: 500, text: `${text}\n`, annotations: { [REASON_ANNOTATION]: 'internal error' } };
  }
  return { kind: 'forbidden', error: forbiddenError(a, result.reason), annotations: { [DECISION_ANNOTATION]: 'forbid', [REASON_ANNOTATION]: result.reason } };
}
