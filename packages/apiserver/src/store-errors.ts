// Maps the store contract's errors onto Kubernetes Status errors (one place, so every verb agrees).
import { errors, StatusError, qualifiedResource, type ResourceInfo } from '@kemu/api';
import { CompactedError, FutureRevisionError, KeyExistsError, KeyNotFoundError, RevisionMismatchError } from '@kemu/store';

export function mapStoreError(err: unknown, r: ResourceInfo, name: string): StatusError {
  if (err instanceof StatusError) return err;
  const qr = qualifiedResource(r);
  if (err instanceof KeyExistsError) return errors.alreadyExists(qr, name);
  if (err instanceof KeyNotFoundError) return errors.notFound(qr, name);
  if (err instanceof RevisionMismatchError) return errors.conflict(qr, name);
  if (err instanceof CompactedError) return errors.gone(`too old resource version: ${err.requested} (${err.compacted})`);
  if (err instanceof FutureRevisionError)
    return new StatusError('Timeout', `Too large resource version: ${err.requested}, current: ${err.current}`, { retryAfterSeconds: 1 });
  return errors.internal(err instanceof Error ? err.message : String(err));
}
