// Kubernetes' token cache in front of the bearer token authenticators (TokenSuccessCacheTTL 10 s, failures not
// cached): a token that authenticated is believed again for ten seconds without checking its signature or its
// ServiceAccount, so revoking one (deleting its ServiceAccount, pod or Secret) takes effect within that time, as
// in Kubernetes. Keyed by the token's hash and the audiences asked for.
import crypto from 'node:crypto';
import type { AuthnResponse, TokenAuthenticator } from './types.ts';

export const TOKEN_SUCCESS_CACHE_TTL_MS = 10_000;
const MAX_ENTRIES = 4096;

export function cachedTokenAuthenticator(delegate: TokenAuthenticator, ttlMs = TOKEN_SUCCESS_CACHE_TTL_MS, now: () => number = Date.now): TokenAuthenticator {
  const cache = new Map<string, { res: AuthnResponse; untilMs: number }>();
  return {
    name: delegate.name,
    async authenticateToken(token, audiences): Promise<AuthnResponse | undefined> {
      const key = crypto.createHash('sha256').update(token).update('\0').update((audiences ?? []).join('\0')).digest('base64');
      const t = now();
      const hit = cache.get(key);
      if (hit && t < hit.untilMs) return hit.res;
      const res = await delegate.authenticateToken(token, audiences);
      if (res) {
        if (cache.size >= MAX_ENTRIES) cache.clear();
        cache.set(key, { res, untilMs: t + ttlMs });
      } else cache.delete(key);
      return res;
    },
  };
}
