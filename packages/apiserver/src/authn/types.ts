// The authenticator contract, as Kubernetes' authenticator.Request: each authenticator looks at the request
// for the one kind of credential it knows. It answers undefined when that credential is absent (the next one
// is asked), a user when the credential is good, and throws AuthenticationError when it is present but bad.
import type { IncomingHttpHeaders } from 'node:http';
import type { PeerCertificate } from 'node:tls';
import type { UserInfo } from './user.ts';

export interface AuthnRequest {
  headers: IncomingHttpHeaders;
  /** The verified client certificate chain, leaf first (empty when none was sent or it did not verify). */
  peerCertificates: readonly PeerCertificate[];
  /**
   * The TLS socket's verdict on the client certificate (authorized = chains to the --client-ca-file). `peer` is
   * the certificate as presented (getPeerCertificate(true), its issuerCertificate links the chain sent), verified
   * or not: the x509 and request-header authenticators verify it themselves against their own CA, as Kubernetes'.
   */
  tls?: { authorized: boolean; authorizationError?: string | undefined; peer?: PeerCertificate | undefined };
  /** Each header's values one by one (node's headersDistinct); the request-header authenticator reads groups here. */
  headersDistinct?: Record<string, string[] | undefined>;
  /** The audiences the caller wants a token valid for (TokenReview's spec.audiences); default --api-audiences. */
  audiences?: readonly string[];
}

export interface AuthnResponse {
  user: UserInfo;
  /** Audiences the credential was valid for (token authenticators), as Kubernetes' Response.Audiences. */
  audiences?: readonly string[];
}

export interface Authenticator {
  readonly name: string;
  authenticate(req: AuthnRequest): Promise<AuthnResponse | undefined> | AuthnResponse | undefined;
}

/** A credential was presented and is bad: the request gets 401 unless another authenticator accepts it. */
export class AuthenticationError extends Error {}

/** Authenticates a bare bearer token (TokenReview, the token-file/SA-JWT/bootstrap authenticators). */
export interface TokenAuthenticator {
  readonly name: string;
  authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthnResponse | undefined> | AuthnResponse | undefined;
}
