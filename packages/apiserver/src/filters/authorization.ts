// The authorization stage (Kubernetes' WithAuthorization): the --authorization-mode chain decides from the
// request's attributes alone, before anything is read or decoded; what authz/decide.ts makes of the decision
// (pass, 403 Forbidden, or a plain-text 500 on an evaluation error) is what the client gets, and the decision
// and its reason go to the audit event.
import type { IncomingMessage } from 'node:http';
import { authorizationOutcome } from '../authz/decide.ts';
import { attributesOf } from '../authz/request-info.ts';
import type { Authorizer } from '../authz/types.ts';
import { requestState } from './request-state.ts';

/** A refusal that is not a Status: Kubernetes' http.Error text for an authorizer that failed. */
export class PlainTextError extends Error {
  constructor(
    readonly code: number,
    readonly text: string,
  ) {
    super(text);
  }
}

export async function authorize(raw: IncomingMessage, authorizer: Authorizer | undefined, annotate?: (key: string, value: string) => void): Promise<void> {
  if (!authorizer) return;
  const state = requestState(raw);
  const user = state.user;
  if (!user) throw new Error('authorization before authentication');
  const attrs = attributesOf(user, state.info);
  const outcome = authorizationOutcome(await authorizer.authorize(attrs), attrs, raw.url ?? '/');
  for (const [k, v] of Object.entries(outcome.annotations)) annotate?.(k, v);
  if (outcome.kind === 'forbidden') throw outcome.error;
  if (outcome.kind === 'error') throw new PlainTextError(outcome.code, outcome.text);
}
