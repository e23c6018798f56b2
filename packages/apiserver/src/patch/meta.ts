// The strategic-merge-patch strategy of a list, read from the kind's schema (the patchStrategy and
// patchMergeKey tags of k8s.io/api). Lists without a merge strategy, and kinds without a schema, are replaced.
import type { ResourceInfo } from '@kemu/api';
import { schemaOfResource } from '../schema/index.ts';
import { positionAt } from '../schema/walk.ts';

export type ListStrategy =
  | { kind: 'merge'; key: string; retainKeys?: boolean }
  | { kind: 'primitiveMerge' }
  | { kind: 'replace' };

const REPLACE: ListStrategy = { kind: 'replace' };

/** `path` is the list field's position as field names from the root (list indices omitted). */
export function listStrategy(resource: ResourceInfo | undefined, path: readonly string[]): ListStrategy {
  const root = schemaOfResource(resource);
  const f = root && positionAt(root, path)?.field;
  if (!f?.repeated || !f.patch || !f.patch.strategy.includes('merge')) return REPLACE;
  const retainKeys = f.patch.strategy.includes('retainKeys');
  if (typeof f.type === 'string') return { kind: 'primitiveMerge' };
  if (!f.patch.mergeKey) return REPLACE;
  return retainKeys ? { kind: 'merge', key: f.patch.mergeKey, retainKeys } : { kind: 'merge', key: f.patch.mergeKey };
}
