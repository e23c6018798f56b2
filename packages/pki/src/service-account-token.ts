// Minting ServiceAccount JWTs as Kubernetes' serviceaccount.Claims and JWTTokenGenerator do: header {alg, kid};
// the payload's keys sorted at every level (go-jose merges the claims through maps), aud always a list; bound
// tokens carry iat/nbf/exp, a jti and kubernetes.io {namespace, serviceaccount, pod|secret|node}.
import { randomUUID } from 'node:crypto';
import { CompactSign } from 'jose';
import type { KubeObject } from '@kemu/api';
import type { SigningKey } from './service-account-keys.ts';

export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
/** A ServiceAccount's user name is this prefix, then <namespace>:<name>. */
export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function sortKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: { [k: string]: Json } = {};
    for (const k of Object.keys(v).sort()) {
      const x = v[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

export async function signClaims(signer: SigningKey, claims: { [k: string]: Json }): Promise<string> {
  const payload = new TextEncoder().encode(JSON.stringify(sortKeys(claims)));
  return new CompactSign(payload).setProtectedHeader({ alg: signer.alg, kid: signer.kid }).sign(signer.key);
}

const ref = (o: KubeObject) => ({ name: o.metadata.name ?? '', uid: o.metadata.uid ?? '' });

export interface BoundTokenRequest {
  issuer: string;
  serviceAccount: KubeObject;
  audiences: readonly string[];
  expirationSeconds: number;
  nowMs: number;
  pod?: KubeObject;
  secret?: KubeObject;
  /** The node a bound pod runs on (only name when the Node is gone), or the Node the token is bound to. */
  node?: KubeObject;
  /** Projected-token transition (--service-account-extend-token-expiration): kubernetes.io.warnafter, from now. */
  warnAfterSeconds?: number;
}

export function boundClaims(r: BoundTokenRequest): { claims: { [k: string]: Json }; jti: string } {
  const now = Math.floor(r.nowMs / 1000);
  const ns = r.serviceAccount.metadata.namespace ?? '';
  const k8s: { [k: string]: Json } = { namespace: ns, serviceaccount: ref(r.serviceAccount) };
  if (r.pod) {
    k8s.pod = ref(r.pod);
    if (r.node) k8s.node = r.node.metadata.uid ? ref(r.node) : { name: r.node.metadata.name ?? '' };
  } else if (r.secret) k8s.secret = ref(r.secret);
  else if (r.node) k8s.node = ref(r.node);
  if (r.warnAfterSeconds) k8s.warnafter = now + r.warnAfterSeconds;
  const jti = randomUUID();
  return {
    jti,
    claims: {
      aud: [...r.audiences],
      exp: now + r.expirationSeconds,
      iat: now,
      iss: r.issuer,
      jti,
      'kubernetes.io': k8s,
      nbf: now,
      sub: `${SERVICE_ACCOUNT_PREFIX}${ns}:${r.serviceAccount.metadata.name ?? ''}`,
    },
  };
}

/** A legacy Secret-based token's claims (what the token controller used to write into the Secret). */
export function legacyClaims(serviceAccount: KubeObject, secretName: string): { [k: string]: Json } {
  const ns = serviceAccount.metadata.namespace ?? '';
  const name = serviceAccount.metadata.name ?? '';
  return {
    iss: LEGACY_ISSUER,
    'kubernetes.io/serviceaccount/namespace': ns,
    'kubernetes.io/serviceaccount/secret.name': secretName,
    'kubernetes.io/serviceaccount/service-account.name': name,
    'kubernetes.io/serviceaccount/service-account.uid': serviceAccount.metadata.uid ?? '',
    sub: `${SERVICE_ACCOUNT_PREFIX}${ns}:${name}`,
  };
}
