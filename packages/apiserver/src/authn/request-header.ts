// The front-proxy authenticator (Kubernetes' requestheader authenticator behind an x509 Verifier): a client
// certificate that chains to --requestheader-client-ca-file (not the client CA) and, when
// --requestheader-allowed-names is set, has one of those CNs, may state the user in headers: the first non-empty
// username header, every value of every group header, and extra from each header under a prefix (key lower-cased
// then %-unescaped). The headers used are removed from the request, as Kubernetes does.
import type { X509Certificate } from '@kemu/pki';
import { ClientChainVerifier, presentedRaw } from './x509.ts';
import { AuthenticationError, type Authenticator, type AuthnRequest, type AuthnResponse } from './types.ts';

export interface RequestHeaderOptions {
  roots: readonly X509Certificate[];
  allowedNames: readonly string[];
  usernameHeaders: readonly string[];
  groupHeaders: readonly string[];
  extraHeaderPrefixes: readonly string[];
  now?: () => number;
}

/** Header names trimmed; an empty one is refused as Kubernetes' trimHeaders does. */
export function trimHeaders(names: readonly string[]): string[] {
  return names.map((n) => {
    const t = n.trim();
    if (t === '') throw new Error(`empty header ${JSON.stringify(n)}`);
    return t;
  });
}

function values(req: AuthnRequest, name: string): string[] {
  const key = name.toLowerCase();
  const distinct = req.headersDistinct?.[key];
  if (distinct) return distinct;
  const v = req.headers[key];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function unescapeKey(k: string): string {
  try {
    return decodeURIComponent(k);
  } catch {
    return k; // kept as sent when malformed, as Kubernetes does
  }
}

export function requestHeaderAuthenticator(o: RequestHeaderOptions): Authenticator {
  const nameHeaders = trimHeaders(o.usernameHeaders);
  const groupHeaders = trimHeaders(o.groupHeaders);
  const prefixes = trimHeaders(o.extraHeaderPrefixes).map((p) => p.toLowerCase());
  const now = o.now ?? Date.now;
  const verifier = new ClientChainVerifier(o.roots);
  return {
    name: 'request-header',
    authenticate(req: AuthnRequest): AuthnResponse | undefined {
      const raws = presentedRaw(req);
      if (!raws || o.roots.length === 0) return undefined;
      const cn = verifier.verify(raws, now()).cn;
      if (o.allowedNames.length > 0 && !o.allowedNames.includes(cn)) throw new AuthenticationError(`x509: subject with cn=${cn} is not in the allowed list`);
      let username = '';
      for (const h of nameHeaders) {
        const v = values(req, h)[0] ?? '';
        if (v !== '') {
          username = v;
          break;
        }
      }
      if (username === '') return undefined;
      const groups = groupHeaders.flatMap((h) => values(req, h).filter((v) => v !== ''));
      const extra: Record<string, string[]> = {};
      const headerNames = Object.keys(req.headers);
      for (const prefix of prefixes) {
        for (const h of headerNames) {
          if (!h.startsWith(prefix)) continue;
          const key = unescapeKey(h.slice(prefix.length).toLowerCase());
          (extra[key] ??= []).push(...values(req, h));
        }
      }
      for (const h of [...nameHeaders, ...groupHeaders]) deleteHeader(req, h.toLowerCase());
      for (const h of headerNames) if (prefixes.some((p) => h.startsWith(p))) deleteHeader(req, h);
      return { user: { username, groups, extra } };
    },
  };
}

function deleteHeader(req: AuthnRequest, name: string): void {
  delete req.headers[name];
  if (req.headersDistinct) delete req.headersDistinct[name];
}
