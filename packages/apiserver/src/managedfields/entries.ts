// metadata.managedFields ⇄ managers: each entry decoded to its field set under Kubernetes' manager
// identifier (manager, operation, apiVersion for updaters, subresource), encoded back in Kubernetes' order
// (Apply before Update, then by time, manager, apiVersion, subresource).
import type { ManagedFieldsEntry } from '@kemu/api';
import { FieldSet } from './fieldset.ts';

export type Operation = 'Apply' | 'Update';

export interface Manager {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
  time?: string;
  set: FieldSet;
}

/** Keyed by identifier(). */
export type Managers = Map<string, Manager>;

/** BuildManagerIdentifier: the entry without fields, type and time; appliers also without apiVersion. */
export function identifier(m: Pick<Manager, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const id: Record<string, string> = {};
  if (m.manager) id.manager = m.manager;
  id.operation = m.operation;
  if (m.operation === 'Update' && m.apiVersion) id.apiVersion = m.apiVersion;
  if (m.subresource) id.subresource = m.subresource;
  return JSON.stringify(id);
}

/** isResetManagedFields: [] or [{}] asks to clear every entry. */
export function isReset(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  if (v.length === 0) return true;
  const only: unknown = v[0];
  return v.length === 1 && typeof only === 'object' && only !== null && !Array.isArray(only) && Object.keys(only).length === 0;
}

/** Decodes managedFields; throws an Error saying what is wrong (callers fall back to the live object's). */
export function decodeManagedFields(v: unknown): Managers {
  const out: Managers = new Map();
  if (v === undefined || v === null) return out;
  if (!Array.isArray(v)) throw new Error('managedFields must be a list');
  v.forEach((e: unknown, i) => {
    if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new Error(`managed fields entry ${i} must be an object`);
    const x = e as Record<string, unknown>;
    if (x.operation !== 'Apply' && x.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (typeof x.apiVersion !== 'string' || x.apiVersion === '') throw new Error('apiVersion must not be empty');
    if (x.fieldsType === undefined || x.fieldsType === '') throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (x.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(x.fieldsType)} in managed fields entry ${i}`);
    for (const f of ['manager', 'subresource', 'time'] as const) {
      if (x[f] !== undefined && x[f] !== null && typeof x[f] !== 'string') throw new Error(`${f} must be a string in managed fields entry ${i}`);
    }
    const m: Manager = {
      manager: typeof x.manager === 'string' ? x.manager : '',
      operation: x.operation,
      apiVersion: x.apiVersion,
      set: x.fieldsV1 === undefined || x.fieldsV1 === null ? new FieldSet() : FieldSet.fromFieldsV1(x.fieldsV1),
    };
    if (typeof x.subresource === 'string' && x.subresource !== '') m.subresource = x.subresource;
    if (typeof x.time === 'string' && x.time !== '') m.time = x.time;
    out.set(identifier(m), m);
  });
  return out;
}

/** The live object's managers, or none when they cannot be decoded. */
export function decodeOrEmpty(v: unknown): Managers {
  try {
    return decodeManagedFields(v);
  } catch {
    return new Map();
  }
}

function seconds(t: string | undefined): number {
  if (t === undefined) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The managedFields list (undefined when nobody manages anything). */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] | undefined {
  const list = [...managers.values()].filter((m) => !m.set.isEmpty());
  if (list.length === 0) return undefined;
  list.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
  return list.map((m) => {
    const e: ManagedFieldsEntry = {};
    if (m.manager) e.manager = m.manager;
    e.operation = m.operation;
    e.apiVersion = m.apiVersion;
    if (m.time !== undefined) e.time = m.time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = m.set.toFieldsV1();
    if (m.subresource) e.subresource = m.subresource;
    return e;
  });
}

export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT = 'ancient-changes';

/** capManagersManager: beyond ten updaters, the oldest are merged into an "ancient-changes" entry per version. */
export function capUpdateManagers(managers: Managers, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...managers.entries()].filter(([, m]) => m.operation === 'Update');
  if (updaters.length <= max) return;
  updaters.sort(([ia, a], [ib, b]) => seconds(a.time) - seconds(b.time) || cmp(ia, ib));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (const [id, m] of updaters) {
    if (length <= max) break;
    const bucketId = identifier({ manager: ANCIENT, operation: 'Update', apiVersion: m.apiVersion });
    const first = firstOfVersion.get(m.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(m.apiVersion, id);
      continue;
    }
    if (!managers.has(bucketId)) {
      const f = managers.get(first) as Manager;
      managers.delete(first);
      managers.set(bucketId, { ...f, manager: ANCIENT, subresource: undefined });
    }
    const bucket = managers.get(bucketId) as Manager;
    const merged: Manager = { manager: ANCIENT, operation: 'Update', apiVersion: m.apiVersion, set: m.set.union(bucket.set) };
    if (m.time !== undefined) merged.time = m.time;
    managers.set(bucketId, merged);
    managers.delete(id);
    length--;
  }
}
