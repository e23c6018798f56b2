// The authentication stage (Kubernetes' WithAuthentication): the authenticator union names the user, or the
// request ends with 401 Unauthorized. Credentials are consumed here: the Authorization header does not
// travel further. Requests a trusted path marks (the --insecure-port) skip it as the unsecured user.
import { StatusError } from '@kemu/api';
import type { IncomingMessage } from 'node:http';
import { TLSSocket, type PeerCertificate } from 'node:tls';
import { AuthenticationError, type Authenticator, type AuthnRequest } from '../authn/types.ts';
import { UNSECURED_USER, type UserInfo } from '../authn/user.ts';
import { requestState } from './request-state.ts';

export interface AuthenticationOptions {
  authenticator: Authenticator;
  /** Requests that skip authentication (and authorization), e.g. those that came in on --insecure-port. */
  trusted?: (raw: IncomingMessage) => boolean;
}

export function unauthorized(): StatusError {
  return new StatusError('Unauthorized', 'Unauthorized');
}

/** The client certificate chain the TLS socket verified (leaf first), as the x509 authenticator reads it. */
export function authnRequestOf(raw: IncomingMessage): AuthnRequest {
  const socket = raw.socket;
  if (!(socket instanceof TLSSocket)) return { headers: raw.headers, peerCertificates: [] };
  const peer = socket.getPeerCertificate(true);
  const chain: PeerCertificate[] = [];
  let cur: PeerCertificate | undefined = peer && Object.keys(peer).length > 0 ? peer : undefined;
  while (cur && !chain.includes(cur)) {
    chain.push(cur);
    const next = (cur as PeerCertificate & { issuerCertificate?: PeerCertificate }).issuerCertificate;
    cur = next && next !== cur ? next : undefined;
  }
  return {
    headers: raw.headers,
    peerCertificates: chain,
    tls: { authorized: socket.authorized, authorizationError: socket.authorizationError ? String(socket.authorizationError) : undefined, peer: chain[0] },
  };
}

/** Authenticates one request, recording the user in its state; throws 401 when no credential holds. */
export async function authenticate(raw: IncomingMessage, o: AuthenticationOptions | undefined): Promise<UserInfo> {
  const state = requestState(raw);
  if (state.user) return state.user;
  if (!o || o.trusted?.(raw)) {
    state.user = UNSECURED_USER;
    return state.user;
  }
  let res;
  try {
    res = await o.authenticator.authenticate(authnRequestOf(raw));
  } catch (e) {
    if (e instanceof AuthenticationError || e instanceof StatusError) throw unauthorized();
    throw e;
  }
  if (!res) throw unauthorized();
  state.user = res.user;
  if (res.audiences) state.audiences = res.audiences;
  // Kubernetes strips the credential once it has been used, so nothing downstream can replay it.
  delete raw.headers.authorization;
  return res.user;
}
