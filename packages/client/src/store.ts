// Cache keys and the read-only cache interfaces (client-go's tools/cache store.go): objects are keyed
// "namespace/name" (or "name" when cluster-scoped), as MetaNamespaceKeyFunc does.
import type { KubeObject } from '@kemu/api';

/** "namespace/name", or "name" for cluster-scoped objects (client-go's MetaNamespaceKeyFunc). */
export function metaKey(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): string {
  if (isDeletedFinalStateUnknown(obj)) return obj.key;
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/** The inverse of metaKey. */
export function splitKey(key: string): { namespace?: string; name: string } {
  const i = key.indexOf('/');
  if (i < 0) return { name: key };
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

export type IndexFunc<T> = (obj: T) => string[];

/** A read-only, indexed view of a cache: never mutate what it returns (clone first). */
export interface Indexer<T extends KubeObject> {
  get(key: string): T | undefined;
  list(): T[];
  keys(): string[];
  /** Objects whose index `indexName` yields `value`; 'namespace' is built in. */
  byIndex(indexName: string, value: string): T[];
}

/**
 * Handed to onDelete when a re-list found an object gone but its delete event was missed: `obj` is the
 * last state the cache saw.
 */
export interface DeletedFinalStateUnknown<T> {
  key: string;
  obj: T;
  deletedFinalStateUnknown: true;
}

export function isDeletedFinalStateUnknown<T>(v: unknown): v is DeletedFinalStateUnknown<T> {
  return typeof v === 'object' && v !== null && (v as { deletedFinalStateUnknown?: unknown }).deletedFinalStateUnknown === true;
}

/** The object inside a delete notification, whether it came as the object or as a tombstone. */
export function unwrapDeleted<T>(obj: T | DeletedFinalStateUnknown<T>): T {
  return isDeletedFinalStateUnknown<T>(obj) ? obj.obj : obj;
}

export const NAMESPACE_INDEX = 'namespace';

/** The built-in index: an object's namespace (cluster-scoped objects index under ""). */
export function namespaceIndexFunc(obj: KubeObject): string[] {
  return [obj.metadata?.namespace ?? ''];
}
