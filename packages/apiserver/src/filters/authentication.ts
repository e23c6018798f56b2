// The authentication stage (Kubernetes' WithAuthentication): the authenticator union names the user, or the
// request ends with 401 Unauthorized (the reason goes to the log only). Credentials are consumed here: the
// Authorization header does not travel further. Requests a trusted path marks (the --insecure-port) skip it
// as the unsecured user.
import type { Logger } from '@kemu/base';
import type { IncomingMessage } from 'node:http';
import { authenticateIncoming } from '../authn/authenticate.ts';
import type { Authenticator } from '../authn/types.ts';
import { UNSECURED_USER, type UserInfo } from '../authn/user.ts';
import { requestState } from './request-state.ts';

export interface AuthenticationOptions {
  authenticator: Authenticator;
  /** Requests that skip authentication (and authorization), e.g. those that came in on --insecure-port. */
  trusted?: (raw: IncomingMessage) => boolean;
}

/** Authenticates one request, recording the user in its state; throws the 401 Status when no credential holds. */
export async function authenticate(raw: IncomingMessage, o: AuthenticationOptions | undefined, logger?: Logger): Promise<UserInfo> {
  const state = requestState(raw);
  if (state.user) return state.user;
  if (!o || o.trusted?.(raw)) {
    state.user = UNSECURED_USER;
    return state.user;
  }
  const out = await authenticateIncoming(o.authenticator, raw);
  if (!out.ok) {
    logger?.debug({ reason: out.reason, URI: raw.url }, 'Unable to authenticate the request');
    throw out.error;
  }
  state.user = out.response.user;
  // Kubernetes strips the credential once it has been used, so nothing downstream can replay it.
  delete raw.headers.authorization;
  return out.response.user;
}
