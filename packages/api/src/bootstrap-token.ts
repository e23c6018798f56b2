// Bootstrap token Secrets as k8s.io/cluster-bootstrap defines them (token/api constants, util/secrets helpers):
// kube-system/bootstrap-token-<id>, type bootstrap.kubernetes.io/token, string values base64 in `data`.
import type { Secret } from './core.ts';
import type { KubeObject } from './meta.ts';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_TOKEN_ID_KEY = 'token-id';
export const BOOTSTRAP_TOKEN_SECRET_KEY = 'token-secret';
export const BOOTSTRAP_TOKEN_EXPIRATION_KEY = 'expiration';
export const BOOTSTRAP_TOKEN_USAGE_SIGNING_KEY = 'usage-bootstrap-signing';
export const BOOTSTRAP_TOKEN_USAGE_AUTHENTICATION_KEY = 'usage-bootstrap-authentication';
export const BOOTSTRAP_TOKEN_EXTRA_GROUPS_KEY = 'auth-extra-groups';
/** The kube-public ConfigMap kubeadm writes and bootstrap-signer signs. */
export const CLUSTER_INFO_CONFIGMAP = 'cluster-info';
export const CLUSTER_INFO_KUBECONFIG_KEY = 'kubeconfig';
export const JWS_SIGNATURE_KEY_PREFIX = 'jws-kubeconfig-';

/** GetData: the decoded value of a data key, "" when absent. */
export function bootstrapSecretData(secret: KubeObject, key: string): string {
  const v = (secret.data as Secret['data'])?.[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

/** ParseName: the token id of a Secret named bootstrap-token-<[a-z0-9]{6}>, else undefined. */
export function parseBootstrapTokenSecretName(name: string): string | undefined {
  return /^bootstrap-token-([a-z0-9]{6})$/.exec(name)?.[1];
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * GetExpiration: { expired, remainingMs }. No `expiration` key: never expires (0, false); one Go's RFC 3339
 * parser refuses counts as expired.
 */
export function bootstrapTokenExpiration(secret: KubeObject, nowMs: number): { expired: boolean; remainingMs: number } {
  const exp = bootstrapSecretData(secret, BOOTSTRAP_TOKEN_EXPIRATION_KEY);
  if (exp === '') return { expired: false, remainingMs: 0 };
  const t = RFC3339.test(exp) ? Date.parse(exp) : NaN;
  if (Number.isNaN(t)) return { expired: true, remainingMs: 0 };
  const remainingMs = t - nowMs;
  return remainingMs <= 0 ? { expired: true, remainingMs: 0 } : { expired: false, remainingMs };
}
