// ServiceAccount token authenticators, as Kubernetes' jwtTokenAuthenticator with its two validators: legacy
// Secret-based tokens (issuer "kubernetes/serviceaccount") and bound tokens (issuers from
// --service-account-issuer). A token whose unverified "iss" is not ours is not looked at (the next authenticator
// is asked); one that is ours but bad is an error with Kubernetes' message.
import { createPublicKey, timingSafeEqual } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { verifyCompactJws } from './jws-verify.ts';
import type { KubeObject } from '@kemu/api';
import { aggregate, quotedList } from './aggregate.ts';
import { CREDENTIAL_ID_KEY } from './x509.ts';
import type { VerifyKey } from '@kemu/pki';
import { LEGACY_ISSUER } from '@kemu/pki';
import { AuthenticationError, type AuthnResponse, type TokenAuthenticator } from './types.ts';
import { SERVICE_ACCOUNT_PREFIX, SERVICE_ACCOUNTS_GROUP, type UserInfo } from './user.ts';

export const POD_NAME_KEY = 'authentication.kubernetes.io/pod-name';
export const POD_UID_KEY = 'authentication.kubernetes.io/pod-uid';
export const NODE_NAME_KEY = 'authentication.kubernetes.io/node-name';
export const NODE_UID_KEY = 'authentication.kubernetes.io/node-uid';

/** The label the legacy-token cleaner puts on a Secret whose token it is about to delete. */
const INVALID_SINCE_LABEL = 'kubernetes.io/legacy-token-invalid-since';

/** jwt.DefaultLeeway: clock skew allowed on exp/nbf/iat and on deletion timestamps. */
const LEEWAY_MS = 60_000;

type Found = Promise<KubeObject | undefined> | KubeObject | undefined;

/** How the authenticators see objects (kube-apiserver backs it with the registry). */
export interface ServiceAccountLookups {
  getServiceAccount(namespace: string, name: string): Found;
  getSecret(namespace: string, name: string): Found;
  getPod(namespace: string, name: string): Found;
  getNode(name: string): Found;
}

export interface ServiceAccountAuthOptions {
  keys: readonly VerifyKey[];
  /** --api-audiences (the implicit audiences). */
  apiAudiences: readonly string[];
  lookups: ServiceAccountLookups;
  now?: () => number;
}

interface SaInfo {
  namespace: string;
  name: string;
  uid: string;
  podName?: string;
  podUID?: string;
  nodeName?: string;
  nodeUID?: string;
  credentialID?: string;
}

/** Kubernetes' ServiceAccountInfo.UserInfo. */
export function serviceAccountUser(sa: SaInfo): UserInfo {
  const extra: Record<string, string[]> = {};
  if (sa.podName && sa.podUID) {
    extra[POD_NAME_KEY] = [sa.podName];
    extra[POD_UID_KEY] = [sa.podUID];
  }
  if (sa.credentialID) extra[CREDENTIAL_ID_KEY] = [sa.credentialID];
  if (sa.nodeName) {
    extra[NODE_NAME_KEY] = [sa.nodeName];
    if (sa.nodeUID) extra[NODE_UID_KEY] = [sa.nodeUID];
  }
  return {
    username: `${SERVICE_ACCOUNT_PREFIX}${sa.namespace}:${sa.name}`,
    uid: sa.uid,
    groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${sa.namespace}`],
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

type Claims = Record<string, unknown>;

function unverifiedIssuer(token: string): string | undefined {
  if (token.trim().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')) as unknown;
    const iss = (claims as { iss?: unknown } | null)?.iss;
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

const ALGS: Record<string, string[]> = { rsa: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'], ec: ['ES256', 'ES384', 'ES512'] };

type Validator = (token: string, claims: Claims, requested: readonly string[]) => Promise<SaInfo>;

function jwtAuthenticator(name: string, issuers: readonly string[], o: ServiceAccountAuthOptions, validate: Validator): TokenAuthenticator {
  // Verification wants the public half, whatever form the key was given in.
  const keys = o.keys.map((k) => (k.key.type === 'private' ? { kid: k.kid, key: createPublicKey(k.key) } : k));
  const byKid = new Map<string, VerifyKey[]>();
  for (const k of keys) byKid.set(k.kid, [...(byKid.get(k.kid) ?? []), k]);
  return {
    name,
    async authenticateToken(token, audiences): Promise<AuthnResponse | undefined> {
      const iss = unverifiedIssuer(token);
      if (iss === undefined || !issuers.includes(iss)) return undefined;
      let kid: string | undefined;
      try {
        const h = decodeProtectedHeader(token);
        kid = typeof h.kid === 'string' && h.kid !== '' ? h.kid : undefined;
      } catch {
        return undefined;
      }
      const candidates = kid ? (byKid.get(kid) ?? []) : keys;
      if (candidates.length === 0) throw new AuthenticationError('invalid signature, no keys found');
      let claims: Claims | undefined;
      const errs: string[] = [];
      for (const k of candidates) {
        try {
          const payload = verifyCompactJws(token, k.key, ALGS[k.key.asymmetricKeyType ?? ''] ?? []);
          claims = JSON.parse(new TextDecoder().decode(payload)) as Claims;
          break;
        } catch {
          errs.push('square/go-jose: error in cryptographic primitive');
        }
      }
      if (!claims || typeof claims !== 'object') throw aggregate(errs.length ? errs.map((m) => new AuthenticationError(m)) : [new AuthenticationError('square/go-jose: error in cryptographic primitive')])!;
      if (typeof claims.iss !== 'string' || !issuers.includes(claims.iss)) throw new AuthenticationError(`token issuer ${JSON.stringify(claims.iss ?? '')} is invalid`);
      const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === 'string') : [];
      const tokenAuds = aud.length ? aud : o.apiAudiences;
      const requested = audiences && audiences.length ? audiences : o.apiAudiences;
      const auds = tokenAuds.filter((a) => requested.includes(a));
      if (auds.length === 0 && o.apiAudiences.length !== 0) {
        throw new AuthenticationError(`token audiences ${quotedList(tokenAuds)} is invalid for the target audiences ${quotedList(requested)}`);
      }
      const sa = await validate(token, claims, requested);
      return { user: serviceAccountUser(sa), audiences: auds };
    },
  };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function deletedBefore(o: KubeObject, cutoffMs: number): boolean {
  const ts = o.metadata.deletionTimestamp;
  return typeof ts === 'string' && Date.parse(ts) < cutoffMs;
}

export interface LegacyOptions extends ServiceAccountAuthOptions {
  /** --service-account-lookup: check the Secret and ServiceAccount still exist. */
  lookup: boolean;
}

/** Secret-based tokens (the token controller's, issuer "kubernetes/serviceaccount"): Kubernetes' legacyValidator. */
export function legacyServiceAccountAuthenticator(o: LegacyOptions): TokenAuthenticator {
  return jwtAuthenticator('service-account-legacy', [LEGACY_ISSUER], o, async (token, c) => {
    const sub = str(c.sub);
    if (sub === '') throw new AuthenticationError('sub claim is missing');
    const namespace = str(c['kubernetes.io/serviceaccount/namespace']);
    if (namespace === '') throw new AuthenticationError('namespace claim is missing');
    const secretName = str(c['kubernetes.io/serviceaccount/secret.name']);
    if (secretName === '') throw new AuthenticationError('secretName claim is missing');
    const name = str(c['kubernetes.io/serviceaccount/service-account.name']);
    if (name === '') throw new AuthenticationError('serviceAccountName claim is missing');
    const uid = str(c['kubernetes.io/serviceaccount/service-account.uid']);
    if (uid === '') throw new AuthenticationError('serviceAccountUID claim is missing');
    if (sub !== `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`) throw new AuthenticationError('sub claim is invalid');
    if (o.lookup) {
      const secret = await o.lookups.getSecret(namespace, secretName);
      if (!secret || secret.metadata.deletionTimestamp) throw new AuthenticationError('Token has been invalidated');
      const stored = Buffer.from((secret.data as Record<string, string> | undefined)?.token ?? '', 'base64');
      const given = Buffer.from(token);
      if (stored.length !== given.length || !timingSafeEqual(stored, given)) throw new AuthenticationError("Token does not match server's copy");
      const sa = await o.lookups.getServiceAccount(namespace, name);
      if (!sa) throw new AuthenticationError(`serviceaccounts "${name}" not found`);
      if (sa.metadata.deletionTimestamp) throw new AuthenticationError(`ServiceAccount ${namespace}/${name} has been deleted`);
      if ((sa.metadata.uid ?? '') !== uid) throw new AuthenticationError(`ServiceAccount UID (${sa.metadata.uid ?? ''}) does not match claim (${uid})`);
      if (secret.metadata.labels?.[INVALID_SINCE_LABEL]) {
        throw new AuthenticationError(
          `the token in secret ${namespace}/${secretName} for service account ${namespace}/${name} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${INVALID_SINCE_LABEL}' label from the secret to temporarily allow use of this token`,
        );
      }
    }
    return { namespace, name, uid };
  });
}

interface Ref {
  name: string;
  uid: string;
}

function refOf(v: unknown): Ref | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const r = v as { name?: unknown; uid?: unknown };
  return { name: str(r.name), uid: str(r.uid) };
}

const numeric = (v: unknown): number | undefined => (typeof v === 'number' ? v * 1000 : undefined);

/** Bound tokens (TokenRequest, projected volumes): Kubernetes' validator, times with a minute's leeway. */
export function boundServiceAccountAuthenticator(issuers: readonly string[], o: ServiceAccountAuthOptions): TokenAuthenticator {
  const now = o.now ?? Date.now;
  return jwtAuthenticator('service-account', issuers, o, async (_token, c) => {
    const t = now();
    const exp = numeric(c.exp);
    const nbf = numeric(c.nbf);
    const iat = numeric(c.iat);
    if (exp !== undefined && t - LEEWAY_MS > exp) throw new AuthenticationError('service account token has expired');
    if (nbf !== undefined && t + LEEWAY_MS < nbf) throw new AuthenticationError('service account token is not valid yet');
    if (iat !== undefined && t + LEEWAY_MS < iat) throw new AuthenticationError('service account token is issued in the future');
    const k8s = (c['kubernetes.io'] ?? {}) as Record<string, unknown>;
    const namespace = str(k8s.namespace);
    const saRef = refOf(k8s.serviceaccount) ?? { name: '', uid: '' };
    const podRef = refOf(k8s.pod);
    const secretRef = refOf(k8s.secret);
    const nodeRef = refOf(k8s.node);
    const cutoff = t - LEEWAY_MS;
    const sa = await o.lookups.getServiceAccount(namespace, saRef.name);
    if (!sa) throw new AuthenticationError(`serviceaccounts "${saRef.name}" not found`);
    if ((sa.metadata.uid ?? '') !== saRef.uid) throw new AuthenticationError(`service account UID (${sa.metadata.uid ?? ''}) does not match claim (${saRef.uid})`);
    if (deletedBefore(sa, cutoff)) throw new AuthenticationError(`service account ${namespace}/${saRef.name} has been deleted`);
    if (secretRef) {
      const secret = await o.lookups.getSecret(namespace, secretRef.name);
      if (!secret) throw new AuthenticationError('service account token has been invalidated');
      if (secretRef.uid !== (secret.metadata.uid ?? '')) throw new AuthenticationError(`secret UID (${secret.metadata.uid ?? ''}) does not match service account secret ref claim (${secretRef.uid})`);
      if (deletedBefore(secret, cutoff)) throw new AuthenticationError('service account token has been invalidated');
    }
    const info: SaInfo = { namespace, name: saRef.name, uid: saRef.uid };
    if (podRef) {
      const pod = await o.lookups.getPod(namespace, podRef.name);
      if (!pod) throw new AuthenticationError('service account token has been invalidated');
      if (podRef.uid !== (pod.metadata.uid ?? '')) throw new AuthenticationError(`pod UID (${pod.metadata.uid ?? ''}) does not match service account pod ref claim (${podRef.uid})`);
      if (deletedBefore(pod, cutoff)) throw new AuthenticationError('service account token has been invalidated');
      info.podName = podRef.name;
      info.podUID = podRef.uid;
      if (nodeRef) {
        info.nodeName = nodeRef.name;
        info.nodeUID = nodeRef.uid;
      }
    } else if (nodeRef) {
      const node = await o.lookups.getNode(nodeRef.name);
      if (!node) throw new AuthenticationError('service account token has been invalidated');
      if (nodeRef.uid !== (node.metadata.uid ?? '')) throw new AuthenticationError(`node UID (${node.metadata.uid ?? ''}) does not match service account node ref claim (${nodeRef.uid})`);
      if (deletedBefore(node, cutoff)) throw new AuthenticationError('service account token has been invalidated');
      info.nodeName = nodeRef.name;
      info.nodeUID = nodeRef.uid;
    }
    const jti = str(c.jti);
    if (jti) info.credentialID = `JTI=${jti}`;
    return info;
  });
}
