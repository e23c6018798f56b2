// Delegated authentication of a component's secure port, as k8s.io/apiserver's DelegatingAuthenticatorConfig builds
// it: front-proxy request headers (a client certificate from --requestheader-client-ca-file vouches for the
// X-Remote-* headers), then a client certificate from --client-ca-file (CN → user, O → groups), then a bearer token
// checked with a TokenReview at the apiserver (answers cached for --authentication-token-webhook-cache-ttl). The
// first to accept wins; when none does, a credential that was present but bad fails the request (401), and a
// request with no credential is system:anonymous. Every accepted user is also in system:authenticated.
import crypto from 'node:crypto';
import type http from 'node:http';
import type { TLSSocket } from 'node:tls';
import { R, type KubeObject } from '@kemu/api';
import type { RestClient } from '../rest.ts';

export interface ServingUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const ANONYMOUS: ServingUser = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/** A credential was presented and is bad (the request gets 401 unless another authenticator accepts it). */
export class CredentialError extends Error {}

/** Verifies a client certificate chain (leaf first, DER) against one CA bundle. */
export type ChainVerifier = (chain: readonly Buffer[]) => { ok: true; commonName: string; organizations: string[] } | { ok: false; reason: string };

export interface RequestHeaderConfig {
  verify: ChainVerifier;
  usernameHeaders: readonly string[];
  groupHeaders: readonly string[];
  extraHeaderPrefixes: readonly string[];
  /** Empty: any certificate from the CA may vouch. */
  allowedNames: readonly string[];
}

export interface DelegatingAuthenticatorOptions {
  requestHeader?: RequestHeaderConfig;
  clientCert?: ChainVerifier;
  /** The client that sends TokenReviews; without it bearer tokens are not looked at. */
  tokenReviewClient?: RestClient;
  cacheTtlMs: number;
  /** false (the kubelet's --anonymous-auth=false): a request with no credential fails (401) instead of being system:anonymous. */
  anonymous?: boolean;
  now?: () => number;
}

type Authenticate = (req: http.IncomingMessage) => Promise<ServingUser | undefined>;

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

const CACHE_LIMIT = 4096;

/** The client certificate chain the TLS socket received, leaf first. */
export function peerChain(req: http.IncomingMessage): Buffer[] {
  const socket = req.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return [];
  const chain: Buffer[] = [];
  let c = socket.getPeerCertificate(true);
  while (c && c.raw && chain.length < 10) {
    chain.push(c.raw);
    if (!c.issuerCertificate || c.issuerCertificate === c) break;
    c = c.issuerCertificate;
  }
  return chain;
}

function headerValues(req: http.IncomingMessage, name: string): string[] {
  return req.headersDistinct[name.toLowerCase()] ?? [];
}

export class DelegatingAuthenticator {
  private readonly chain: Authenticate[] = [];
  private readonly tokenCache = new Map<string, { until: number; user: ServingUser | undefined }>();
  private readonly now: () => number;

  private requestHeaderConfig: RequestHeaderConfig | undefined;
  private clientCertVerifier: ChainVerifier | undefined;

  constructor(private readonly o: DelegatingAuthenticatorOptions) {
    this.now = o.now ?? Date.now;
    this.requestHeaderConfig = o.requestHeader;
    this.clientCertVerifier = o.clientCert;
    this.chain.push((req) => Promise.resolve(this.requestHeaderConfig && this.requestHeader(this.requestHeaderConfig, req)));
    this.chain.push((req) => Promise.resolve(this.clientCertVerifier && this.clientCert(this.clientCertVerifier, req)));
    if (o.tokenReviewClient) this.chain.push((req) => this.bearerToken(o.tokenReviewClient!, req));
  }

  /** New CAs (a changed extension-apiserver-authentication ConfigMap), for requests from now on. */
  setCertificateAuthorities(c: { requestHeader?: RequestHeaderConfig | undefined; clientCert?: ChainVerifier | undefined }): void {
    this.requestHeaderConfig = c.requestHeader;
    this.clientCertVerifier = c.clientCert;
  }

  /** The user, or ANONYMOUS; throws CredentialError when a credential was bad and none was good. */
  async authenticate(req: http.IncomingMessage): Promise<ServingUser> {
    const errs: string[] = [];
    for (const a of this.chain) {
      try {
        const user = await a(req);
        if (user) return withAuthenticated(user);
      } catch (e) {
        errs.push((e as Error).message);
      }
    }
    if (errs.length) throw new CredentialError(errs.join(', '));
    if (this.o.anonymous === false) throw new CredentialError('no credentials');
    return ANONYMOUS;
  }

  private requestHeader(c: RequestHeaderConfig, req: http.IncomingMessage): ServingUser | undefined {
    const chain = peerChain(req);
    if (!chain.length) return undefined;
    const v = c.verify(chain);
    if (!v.ok) throw new CredentialError(`unable to verify the request-header client certificate: ${v.reason}`);
    if (c.allowedNames.length && !c.allowedNames.includes(v.commonName)) {
      throw new CredentialError(`x509: subject with cn=${v.commonName} is not in the allowed list`);
    }
    const username = c.usernameHeaders.map((h) => headerValues(req, h)[0] ?? '').find((u) => u !== '');
    if (!username) return undefined;
    const groups = c.groupHeaders.flatMap((h) => headerValues(req, h));
    const extra: Record<string, string[]> = {};
    for (const [name, values] of Object.entries(req.headersDistinct)) {
      for (const prefix of c.extraHeaderPrefixes) {
        if (!values || !name.startsWith(prefix.toLowerCase())) continue;
        let key = name.slice(prefix.length);
        try {
          key = decodeURIComponent(key);
        } catch {
          // kept as sent, as Go's PathUnescape failure falls back to the raw key
        }
        (extra[key] ??= []).push(...values);
      }
    }
    return { username, groups, ...(Object.keys(extra).length ? { extra } : {}) };
  }

  private clientCert(verify: ChainVerifier, req: http.IncomingMessage): ServingUser | undefined {
    const chain = peerChain(req);
    if (!chain.length) return undefined;
    const v = verify(chain);
    if (!v.ok) throw new CredentialError(`verifying certificate failed: ${v.reason}`);
    return { username: v.commonName, groups: v.organizations };
  }

  private async bearerToken(client: RestClient, req: http.IncomingMessage): Promise<ServingUser | undefined> {
    const parts = (req.headers.authorization ?? '').trim().split(' ');
    if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
    const token = parts[1]!;
    if (token === '') return undefined;
    const key = crypto.createHash('sha256').update(token).digest('base64');
    const hit = this.tokenCache.get(key);
    let user: ServingUser | undefined;
    if (hit && hit.until > this.now()) {
      user = hit.user;
    } else {
      // A failed review (the apiserver unreachable) is not cached: the next request asks again.
      const review = await client.create<KubeObject>(R.tokenreviews, undefined, { metadata: {}, spec: { token } });
      const s = (review.status ?? {}) as TokenReviewStatus;
      if (!s.authenticated && s.error) throw new CredentialError(s.error);
      user = s.authenticated && s.user?.username ? reviewedUser(s.user) : undefined;
      if (this.tokenCache.size >= CACHE_LIMIT) this.tokenCache.delete(this.tokenCache.keys().next().value!);
      this.tokenCache.set(key, { until: this.now() + this.o.cacheTtlMs, user });
    }
    if (!user) throw new CredentialError('invalid bearer token');
    return user;
  }
}

function reviewedUser(u: NonNullable<TokenReviewStatus['user']>): ServingUser {
  return { username: u.username ?? '', ...(u.uid ? { uid: u.uid } : {}), groups: [...(u.groups ?? [])], ...(u.extra ? { extra: u.extra } : {}) };
}

/** Kubernetes' AuthenticatedGroupAdder. */
function withAuthenticated(u: ServingUser): ServingUser {
  if (u.groups.includes('system:authenticated') || u.groups.includes('system:unauthenticated')) return u;
  return { ...u, groups: [...u.groups, 'system:authenticated'] };
}
