// What structured-merge-diff reads from a kind's schema: how each list is keyed (+listType map/set/atomic,
// +listMapKey) and which structs and maps are atomic (+structType/+mapType=atomic); plus the fields no manager
// owns and the reset fields. Paths are field names from the root, list positions omitted.
import type { ResourceInfo } from '@kemu/api';
import { schemaOfResource } from '../schema/index.ts';
import { positionAt } from '../schema/walk.ts';
import { FieldSet } from './fieldset.ts';

export type ListType =
  | { kind: 'map'; keys: readonly string[]; defaults?: Readonly<Record<string, unknown>>; atomicItems?: boolean }
  | { kind: 'set' }
  | { kind: 'atomic' };

const ATOMIC: ListType = { kind: 'atomic' };
const SET: ListType = { kind: 'set' };

/** The list type of the list at `path` (its field names from the root); atomic when the schema says nothing. */
export function listType(r: ResourceInfo | undefined, path: readonly string[]): ListType {
  const root = schemaOfResource(r);
  const at = root && positionAt(root, path);
  const lt = at?.field?.repeated ? at.field.listType : undefined;
  if (!lt || lt.type === 'atomic') return ATOMIC;
  if (lt.type === 'set') return SET;
  // Items of an atomic struct (ObjectReference-like) are owned whole under their key.
  return { kind: 'map', keys: lt.keys, ...(lt.keyDefaults ? { defaults: lt.keyDefaults } : {}), ...(at?.struct?.atomic ? { atomicItems: true } : {}) };
}

/** Whether the map or struct at `path` is atomic (+structType=atomic / +mapType=atomic): owned and replaced whole. */
export function atomicMap(r: ResourceInfo | undefined, path: readonly string[]): boolean {
  const root = schemaOfResource(r);
  const at = root && positionAt(root, path);
  if (!at) return false;
  const t = at.field?.type;
  if (at.field && typeof t === 'object' && 'map' in t && at.field.name === path[path.length - 1]) return at.field.atomicMap === true;
  return at.struct?.atomic === true;
}

function set(paths: string[][]): FieldSet {
  const s = new FieldSet();
  for (const p of paths) {
    let cur = s;
    for (let i = 0; i < p.length - 1; i++) cur = cur.child(`f:${p[i] as string}`);
    cur.members.add(`f:${p[p.length - 1] as string}`);
  }
  return s;
}

/** The fields no manager owns (stripMetaManager): type meta and the system-set metadata. */
export const STRIPPED = set([
  ['apiVersion'],
  ['kind'],
  ['metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => ['metadata', f]),
]);

const STATUS = set([['status']]);
const SPEC = set([['spec']]);

/**
 * The reset fields of a write (GetResetFields of the kind's strategy): through the main resource, a kind
 * with a status subresource ignores status; through /status, spec is ignored.
 */
export function resetFields(r: ResourceInfo, subresource: string | undefined): FieldSet | undefined {
  const hasStatus = r.subresources.some((s) => s.name === 'status');
  if (subresource === 'status') return SPEC;
  if (subresource === undefined && hasStatus) return STATUS;
  return undefined;
}

/**
 * The struct fields the zero value of a kind already has (non-pointer structs): an update that fills them
 * does not make them members of its set, only their fields (Kubernetes compares against the typed object).
 */
export function zeroSkeleton(r: ResourceInfo): Record<string, unknown> {
  switch (r.plural) {
    case 'deployments':
      return { metadata: {}, spec: { template: { metadata: {}, spec: {} }, strategy: {} }, status: {} };
    case 'replicasets':
      return { metadata: {}, spec: { template: { metadata: {}, spec: {} } }, status: {} };
    case 'jobs':
      return { metadata: {}, spec: { template: { metadata: {}, spec: {} } }, status: {} };
    case 'cronjobs':
      return { metadata: {}, spec: { jobTemplate: { metadata: {}, spec: { template: { metadata: {}, spec: {} } } } }, status: {} };
    case 'pods':
    case 'services':
    case 'nodes':
    case 'namespaces':
      return { metadata: {}, spec: {}, status: {} };
    case 'leases':
      return { metadata: {}, spec: {} };
    default:
      return { metadata: {} };
  }
}
