// Bootstrap tokens as kubeadm handles them (cluster-bootstrap's token util and kubeadm's BootstrapToken): the
// "<id>.<secret>" format, random generation, the kube-system Secret `bootstrap-token-<id>` a token lives in,
// reading one back, and `kubeadm token list`'s table. Messages are kubeadm's.
import crypto from 'node:crypto';
import {
  BOOTSTRAP_TOKEN_EXPIRATION_KEY,
  BOOTSTRAP_TOKEN_EXTRA_GROUPS_KEY,
  BOOTSTRAP_TOKEN_ID_KEY,
  BOOTSTRAP_TOKEN_SECRET_KEY,
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  bootstrapSecretData as secretData,
  type KubeObject,
} from '@kemu/api';

// Go's regexp syntax, as kubeadm prints the patterns in its errors.
export const BOOTSTRAP_TOKEN_PATTERN = '\\A([a-z0-9]{6})\\.([a-z0-9]{16})\\z';
export const BOOTSTRAP_TOKEN_ID_PATTERN = '\\A([a-z0-9]{6})\\z';
export const BOOTSTRAP_GROUP_PATTERN = '\\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z';
const TOKEN_RE = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const TOKEN_ID_RE = /^[a-z0-9]{6}$/;
const GROUP_RE = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

export { BOOTSTRAP_TOKEN_SECRET_PREFIX, BOOTSTRAP_TOKEN_SECRET_TYPE };
export const BOOTSTRAP_TOKEN_USAGE_PREFIX = 'usage-bootstrap-';
/** cluster-bootstrap's KnownTokenUsages, in its order. */
export const KNOWN_TOKEN_USAGES = ['signing', 'authentication'] as const;

/** The group seed 003's bindings name (kubeadm's own default is system:bootstrappers:kubeadm:default-node-token). */
export const LAB_BOOTSTRAP_GROUP = 'system:bootstrappers:default-node-token';

export class BootstrapTokenError extends Error {
  override name = 'BootstrapTokenError';
}

const CHARS = '0123456789abcdefghijklmnopqrstuvwxyz';

/** n characters of [a-z0-9], uniformly: bytes >= 252 are dropped (256 is not a multiple of 36), as randBytes does. */
function randomChars(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const b of crypto.randomBytes(n * 2)) {
      if (b >= 252) continue;
      out += CHARS[b % CHARS.length];
      if (out.length === n) break;
    }
  }
  return out;
}

export function generateBootstrapToken(): string {
  return `${randomChars(6)}.${randomChars(16)}`;
}

export function isValidBootstrapTokenId(id: string): boolean {
  return TOKEN_ID_RE.test(id);
}

export function parseBootstrapToken(token: string): { id: string; secret: string } {
  const m = TOKEN_RE.exec(token);
  if (!m) throw new BootstrapTokenError(`the bootstrap token "${token}" was not of the form "${BOOTSTRAP_TOKEN_PATTERN}"`);
  return { id: m[1] ?? '', secret: m[2] ?? '' };
}

export function bootstrapTokenSecretName(id: string): string {
  return `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`;
}

export function validateUsages(usages: readonly string[]): void {
  const bad = [...new Set(usages.filter((u) => !(KNOWN_TOKEN_USAGES as readonly string[]).includes(u)))].sort();
  if (bad.length) throw new BootstrapTokenError(`invalid bootstrap token usage string: ${bad.join(',')}, valid usage options: ${KNOWN_TOKEN_USAGES.join(',')}`);
}

export function validateGroups(groups: readonly string[]): void {
  for (const g of groups) if (!GROUP_RE.test(g)) throw new BootstrapTokenError(`bootstrap group "${g}" is invalid (must match ${BOOTSTRAP_GROUP_PATTERN})`);
}

/** A bootstrap token as kubeadm's BootstrapToken holds it. */
export interface BootstrapToken {
  token: string;
  description?: string;
  /** RFC 3339 (UTC, seconds), or undefined: never expires. */
  expires?: string;
  usages: string[];
  groups: string[];
}

/** Go's time.RFC3339 of a UTC instant: seconds, no fraction. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The token with a TTL from now (0: never expires), as kubeadm's --ttl. */
export function tokenWithTtl(t: Omit<BootstrapToken, 'expires'>, ttlMs: number, nowMs: number): BootstrapToken {
  return ttlMs > 0 ? { ...t, expires: rfc3339(nowMs + ttlMs) } : { ...t };
}

/** kubeadm's BootstrapTokenToSecret: kube-system/bootstrap-token-<id> of type bootstrap.kubernetes.io/token. */
export function bootstrapTokenSecret(t: BootstrapToken): KubeObject {
  const { id, secret } = parseBootstrapToken(t.token);
  const data: Record<string, string> = { 'token-id': id, 'token-secret': secret };
  if (t.description) data.description = t.description;
  if (t.expires) data.expiration = t.expires;
  for (const u of t.usages) data[`${BOOTSTRAP_TOKEN_USAGE_PREFIX}${u}`] = 'true';
  if (t.groups.length) data['auth-extra-groups'] = t.groups.join(',');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: bootstrapTokenSecretName(id), namespace: 'kube-system' },
    type: BOOTSTRAP_TOKEN_SECRET_TYPE,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

/**
 * Seed 003's bootstrap.secret.yaml with the given token: the same keys (description, token-id, token-secret, both
 * usages, its three extra groups) and no expiration.
 */
export function seedBootstrapToken(token: string): BootstrapToken {
  return {
    token,
    description: "The default bootstrap token generated by 'kubelet'.",
    usages: ['authentication', 'signing'],
    groups: [LAB_BOOTSTRAP_GROUP, 'system:bootstrappers:worker', 'system:bootstrappers:ingress'],
  };
}

/** kubeadm's BootstrapTokenFromSecret, with its messages. */
export function bootstrapTokenFromSecret(secret: KubeObject): BootstrapToken {
  const name = secret.metadata.name ?? '';
  const id = secretData(secret, BOOTSTRAP_TOKEN_ID_KEY);
  if (!id) throw new BootstrapTokenError(`bootstrap Token Secret has no token-id data: ${name}`);
  if (name !== bootstrapTokenSecretName(id))
    throw new BootstrapTokenError(`bootstrap token name is not of the form '${BOOTSTRAP_TOKEN_SECRET_PREFIX}(token-id)'. Actual: "${name}". Expected: "${bootstrapTokenSecretName(id)}"`);
  const tokenSecret = secretData(secret, BOOTSTRAP_TOKEN_SECRET_KEY);
  if (!tokenSecret) throw new BootstrapTokenError(`bootstrap Token Secret has no token-secret data: ${name}`);
  const token = `${id}.${tokenSecret}`;
  try {
    parseBootstrapToken(token);
  } catch (e) {
    throw new BootstrapTokenError(`bootstrap Token Secret is invalid and couldn't be parsed: ${(e as Error).message}`);
  }
  const t: BootstrapToken = { token, usages: [], groups: [] };
  const description = secretData(secret, 'description');
  if (description) t.description = description;
  const expiration = secretData(secret, BOOTSTRAP_TOKEN_EXPIRATION_KEY);
  if (expiration) {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(expiration) || Number.isNaN(Date.parse(expiration)))
      throw new BootstrapTokenError(`can't parse expiration time of bootstrap token "${name}": parsing time "${expiration}" as "2006-01-02T15:04:05Z07:00": cannot parse "${expiration}" as "2006"`);
    t.expires = expiration;
  }
  const data = (secret.data as Record<string, unknown> | undefined) ?? {};
  for (const k of Object.keys(data)) if (k.startsWith(BOOTSTRAP_TOKEN_USAGE_PREFIX) && secretData(secret, k) === 'true') t.usages.push(k.slice(BOOTSTRAP_TOKEN_USAGE_PREFIX.length));
  t.usages.sort();
  const groups = secretData(secret, BOOTSTRAP_TOKEN_EXTRA_GROUPS_KEY);
  if (groups) t.groups = groups.split(',');
  return t;
}

/** apimachinery's duration.ShortHumanDuration. */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** One row of `kubeadm token list`. */
export function tokenListRow(t: BootstrapToken, nowMs: number): string[] {
  const orNone = (s: string) => s || '<none>';
  const ttl = t.expires ? shortHumanDuration(Date.parse(t.expires) - nowMs) : '<forever>';
  return [t.token, ttl, t.expires ?? '<never>', orNone(t.usages.join(',')), orNone(t.description ?? ''), orNone(t.groups.join(','))];
}

export const TOKEN_LIST_HEADER = ['TOKEN', 'TTL', 'EXPIRES', 'USAGES', 'DESCRIPTION', 'EXTRA GROUPS'];

/**
 * Go's tabwriter.NewWriter(out, 10, 4, 3, ' ', 0) as kubeadm uses it: every column but the last is
 * max(widest cell + 3, 10) wide; the last cell is not padded.
 */
export function tokenListTable(tokens: readonly BootstrapToken[], nowMs: number): string {
  const rows = [TOKEN_LIST_HEADER, ...tokens.map((t) => tokenListRow(t, nowMs))];
  const widths = TOKEN_LIST_HEADER.map((_, i) => Math.max(10, ...rows.map((r) => (r[i] ?? '').length + 3)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('') + '\n').join('');
}
