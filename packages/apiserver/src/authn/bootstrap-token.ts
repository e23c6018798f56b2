// --enable-bootstrap-token-auth: tokens "<id>.<secret>" matched against the Secret kube-system/bootstrap-token-<id>,
// as Kubernetes' bootstrap.TokenAuthenticator. Every mismatch (no Secret, being deleted, wrong type, wrong secret,
// expired, not for authentication, bad extra group) is "not this authenticator's token", never an error.
import { timingSafeEqual } from 'node:crypto';
import { BOOTSTRAP_TOKEN_SECRET_TYPE, bootstrapSecretData as data, bootstrapTokenExpiration, type KubeObject } from '@kemu/api';
import type { AuthnResponse, TokenAuthenticator } from './types.ts';

export { BOOTSTRAP_TOKEN_SECRET_TYPE };
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAP_DEFAULT_GROUP = 'system:bootstrappers';
const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

export interface BootstrapLookups {
  getSecret(namespace: string, name: string): Promise<KubeObject | undefined> | KubeObject | undefined;
}

/** Constant-time string comparison (crypto/subtle.ConstantTimeCompare: different lengths differ). */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** system:bootstrappers plus auth-extra-groups, sorted and de-duplicated (sets.String.List()); undefined when one is invalid. */
function groups(secret: KubeObject): string[] | undefined {
  const set = new Set([BOOTSTRAP_DEFAULT_GROUP]);
  const extra = data(secret, 'auth-extra-groups');
  if (extra !== '') {
    for (const g of extra.split(',')) {
      if (!GROUP.test(g)) return undefined;
      set.add(g);
    }
  }
  return [...set].sort();
}

export function bootstrapTokenAuthenticator(lookups: BootstrapLookups, now: () => number = Date.now): TokenAuthenticator {
  return {
    name: 'bootstrap-token',
    async authenticateToken(token: string): Promise<AuthnResponse | undefined> {
      const m = TOKEN.exec(token);
      if (!m) return undefined;
      const [, id, tokenSecret] = m as unknown as [string, string, string];
      const secret = await lookups.getSecret('kube-system', `bootstrap-token-${id}`);
      if (!secret || secret.metadata.deletionTimestamp) return undefined;
      if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || !secret.data) return undefined;
      if (!sameSecret(data(secret, 'token-secret'), tokenSecret)) return undefined;
      if (data(secret, 'token-id') !== id) return undefined;
      if (bootstrapTokenExpiration(secret, now()).expired) return undefined;
      if (data(secret, 'usage-bootstrap-authentication') !== 'true') return undefined;
      const g = groups(secret);
      if (!g) return undefined;
      return { user: { username: `${BOOTSTRAP_USER_PREFIX}${id}`, groups: g } };
    },
  };
}
