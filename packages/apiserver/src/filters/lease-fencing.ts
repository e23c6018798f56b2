// Lease fencing (a kemu extension; Kubernetes has none): a write that carries X-Kemu-Lease
// ("<namespace>/<name>;holder=<identity>;transitions=<n>", sent by leader-elected kemu components) is
// refused with 409 Conflict unless that Lease, read from the store at this moment, is still held by that
// identity in that term (same spec.holderIdentity and spec.leaseTransitions). A renewal changes neither,
// so a write sent just before one passes; a write from a leader that was deposed (frozen past its lease,
// partitioned, or its request delayed in the network) meets a new holder or a new transitions count and is
// refused, as is one after the Lease was released (holder "") or deleted.
// - Reads and requests without the header are untouched; writes to the named Lease itself are exempt
//   (its resourceVersion already fences renewals and take-overs).
// - A malformed header is a 400 naming the expected format, never ignored.
// - The check reads the store (not this replica's watch cache, which may trail another replica's write by
//   a few ms). It is not in the write's transaction: a hand-over committed between this read and the write
//   is not seen. That window is the request's own processing time, not the freeze or network delay that
//   fencing is for.
import { errors, LEASE_FENCE_FORMAT, LEASE_FENCE_HEADER, parseLeaseFence, R, type Lease } from '@kemu/api';
import type { Backend } from '@kemu/store';
import type { ApiRequest } from '../routes/request.ts';
import { decodeObject, objectKey } from '../storage.ts';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
const HEADER_KEY = LEASE_FENCE_HEADER.toLowerCase();
const LEASES = `${R.leases.plural}.${R.leases.group}`;

/** Throws the Status for a fenced write that may not proceed; returns for every other request. */
export async function checkLeaseFence(backend: Pick<Backend, 'get'>, req: Pick<ApiRequest, 'method' | 'target' | 'headers'>): Promise<void> {
  if (READS.has(req.method)) return;
  const raw = req.headers[HEADER_KEY];
  if (raw === undefined) return;
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  const token = parseLeaseFence(value);
  if (!token) throw errors.badRequest(`invalid ${LEASE_FENCE_HEADER} header ${JSON.stringify(value)}: want "${LEASE_FENCE_FORMAT}"`);
  const t = req.target;
  if (t.resource === R.leases && t.namespace === token.namespace && t.name === token.name) return;

  const kv = await backend.get(objectKey(R.leases, token.namespace, token.name));
  const lease = kv ? (decodeObject(kv) as Lease) : undefined;
  const where = `lease ${token.namespace}/${token.name}`;
  const sent = `this write was sent by ${JSON.stringify(token.holder)} as holder at leaseTransitions ${token.transitions}`;
  if (!lease) throw errors.conflict(LEASES, token.name, `${sent}, but the ${where} does not exist: a write from a former leader is refused`);
  const holder = lease.spec?.holderIdentity ?? '';
  const transitions = lease.spec?.leaseTransitions ?? 0;
  if (holder === token.holder && transitions === token.transitions) return;
  const now = holder === '' ? `has been released (no holder, leaseTransitions ${transitions})` : `is now held by ${JSON.stringify(holder)} (leaseTransitions ${transitions})`;
  throw errors.conflict(LEASES, token.name, `${sent}, but the ${where} ${now}: a write from a former leader is refused`);
}
