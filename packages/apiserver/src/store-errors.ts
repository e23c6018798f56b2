// Maps the store contract's errors onto Kubernetes Status errors (one place, so every verb agrees).
import { errors, StatusError, qualifiedResource, type ResourceInfo } from '@kemu/api';
import { CompactedError, FutureRevisionError, KeyExistsError, KeyNotFoundError, RevisionMismatchError, StoreUnavailableError } from '@kemu/store';

export function mapStoreError(err: unknown, r: ResourceInfo, name: string): StatusError {
  if (err instanceof StatusError) return err;
  const qr = qualifiedResource(r);
  if (err instanceof KeyExistsError) return errors.alreadyExists(qr, name);
  if (err instanceof KeyNotFoundError) return errors.notFound(qr, name);
  if (err instanceof RevisionMismatchError) return errors.conflict(qr, name);
  if (err instanceof CompactedError) return errors.gone(`too old resource version: ${err.requested} (${err.compacted})`);
  if (err instanceof FutureRevisionError)
    return new StatusError('Timeout', `Too large resource version: ${err.requested}, current: ${err.current}`, { retryAfterSeconds: 1 });
  const unavailable = storeUnavailable(err);
  if (unavailable) return unavailable;
  // Any other store failure (disk full, read-only file, I/O error) stays a 500 carrying SQLite's message, as
  // Kubernetes passes etcd's own errors through as a 500 with etcd's text ("etcdserver: mvcc: database space
  // exceeded"); InternalError is the reason Kubernetes gives storage-internal errors (storage.IsInternalError).
  return errors.internal(err instanceof Error ? err.message : String(err));
}

/**
 * A store that refuses writes it cannot make durable is Kubernetes' unreachable storage, which the apiserver
 * answers with 503 ServiceUnavailable and the cause as message (responsewriters' convertStorageErrorOrNot):
 * a client or balancer may try another replica, and nothing was acknowledged. Needs no resource, so the
 * server's last-resort error mapping uses it too (writes outside the registry, e.g. Service allocations).
 */
export function storeUnavailable(err: unknown): StatusError | undefined {
  return err instanceof StoreUnavailableError ? new StatusError('ServiceUnavailable', err.message) : undefined;
}
