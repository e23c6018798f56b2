// What structured-merge-diff learns from the OpenAPI schemas, for the built-in kinds: how each list is
// keyed (x-kubernetes-list-type map/set/atomic, taken from the strategic-merge table where the two agree)
// and which structs are atomic. Paths are field names from the root, list positions omitted.
import type { ResourceInfo } from '@kemu/api';
import { listStrategy } from '../patch/meta.ts';
import { FieldSet } from './fieldset.ts';

export type ListType =
  | { kind: 'map'; keys: readonly string[]; defaults?: Readonly<Record<string, unknown>>; atomicItems?: boolean }
  | { kind: 'set' }
  | { kind: 'atomic' };

const ATOMIC: ListType = { kind: 'atomic' };
const SET: ListType = { kind: 'set' };
const PORT_KEYS = { kind: 'map', keys: ['containerPort', 'protocol'], defaults: { protocol: 'TCP' } } as const;

function endsWith(path: readonly string[], ...tail: string[]): boolean {
  if (tail.length > path.length) return false;
  const off = path.length - tail.length;
  return tail.every((t, i) => path[off + i] === t);
}

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** The list type of the list at `path` (its field names from the root). */
export function listType(r: ResourceInfo | undefined, path: readonly string[]): ListType {
  const n = path.length;
  const last = path[n - 1];
  // Where +listMapKey names more keys than the strategic merge key.
  if (last === 'ports' && CONTAINER_LISTS.has(path[n - 2] ?? '')) return PORT_KEYS;
  if (last === 'ports' && r?.plural === 'services' && n === 2) return { kind: 'map', keys: ['port', 'protocol'], defaults: { protocol: 'TCP' } };
  if (endsWith(path, 'spec', 'topologySpreadConstraints')) return { kind: 'map', keys: ['topologyKey', 'whenUnsatisfiable'] };
  // A CSR's conditions are +listType=map keyed by type, though they have no strategic merge key.
  if (r?.plural === 'certificatesigningrequests' && n === 2 && endsWith(path, 'status', 'conditions')) return { kind: 'map', keys: ['type'] };
  // Lists of atomic structs (ObjectReference-like items).
  if (endsWith(path, 'metadata', 'ownerReferences')) return { kind: 'map', keys: ['uid'], atomicItems: true };
  if (last === 'imagePullSecrets') return { kind: 'map', keys: ['name'], atomicItems: true };
  const s = listStrategy(r, path);
  if (s.kind === 'merge') return { kind: 'map', keys: [s.key] };
  if (s.kind === 'primitiveMerge') return SET;
  return ATOMIC;
}

const ATOMIC_STRUCT_LEAVES = new Set([
  'labelSelector',
  'namespaceSelector',
  'configMapKeyRef',
  'secretKeyRef',
  'fieldRef',
  'resourceFieldRef',
  'configMapRef',
  'secretRef',
  'involvedObject',
  'regarding',
  'related',
  'targetRef',
]);

/** Whether the map at `path` is atomic (+structType=atomic / +mapType=atomic): owned and replaced whole. */
export function atomicMap(r: ResourceInfo | undefined, path: readonly string[]): boolean {
  const last = path[path.length - 1] ?? '';
  if (path.length === 2 && path[0] === 'spec' && last === 'selector') return r?.plural === 'deployments' || r?.plural === 'replicasets' || r?.plural === 'services';
  if (last === 'requiredDuringSchedulingIgnoredDuringExecution' && path[path.length - 2] === 'nodeAffinity') return true;
  return ATOMIC_STRUCT_LEAVES.has(last);
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
