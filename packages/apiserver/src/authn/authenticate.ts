// The authentication stage's one call: who sent this request? Any failure of the chain (a refused credential,
// no credential with anonymous off, even a lookup that failed) is Kubernetes' 401 "Unauthorized"; the reason
// goes to the log only.
import type { IncomingMessage } from 'node:http';
import type { StatusError } from '@kemu/api';
import { errorMessage } from './aggregate.ts';
import { authnRequestOf } from './request.ts';
import type { Authenticator, AuthnRequest, AuthnResponse } from './types.ts';
import { unauthorized } from './unauthorized.ts';

export type AuthnOutcome = { ok: true; response: AuthnResponse } | { ok: false; error: StatusError; reason: string };

export async function authenticateAuthnRequest(auth: Authenticator, req: AuthnRequest): Promise<AuthnOutcome> {
  try {
    const response = await auth.authenticate(req);
    if (response) return { ok: true, response };
    return { ok: false, error: unauthorized(), reason: 'no credentials provided and anonymous requests are disabled' };
  } catch (e) {
    return { ok: false, error: unauthorized(), reason: errorMessage(e) };
  }
}

/** From node's request: headers, and the client certificate as the TLS socket presented it. */
export function authenticateIncoming(auth: Authenticator, req: IncomingMessage): Promise<AuthnOutcome> {
  return authenticateAuthnRequest(auth, authnRequestOf(req));
}
