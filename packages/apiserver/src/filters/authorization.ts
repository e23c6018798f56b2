// The authorization stage (Kubernetes' WithAuthorization): the --authorization-mode chain decides from the
// request's attributes alone, before anything is read or decoded; anything but allow is a 403 Forbidden.
// The decision and its reason go to the audit event as Kubernetes annotates them.
import type { IncomingMessage } from 'node:http';
import { attributesOf } from '../authz/request-info.ts';
import { forbidden } from '../authz/forbidden.ts';
import type { Authorizer } from '../authz/types.ts';
import { requestState } from './request-state.ts';

export const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION = 'authorization.k8s.io/reason';

export async function authorize(raw: IncomingMessage, authorizer: Authorizer | undefined, annotate?: (key: string, value: string) => void): Promise<void> {
  if (!authorizer) return;
  const state = requestState(raw);
  const user = state.user;
  if (!user) throw new Error('authorization before authentication');
  const attrs = attributesOf(user, state.info);
  const d = await authorizer.authorize(attrs);
  if (d.decision === 'allow') {
    annotate?.(DECISION_ANNOTATION, 'allow');
    annotate?.(REASON_ANNOTATION, d.reason);
    return;
  }
  annotate?.(DECISION_ANNOTATION, 'forbid');
  annotate?.(REASON_ANNOTATION, d.reason);
  throw forbidden(attrs, d.reason);
}
