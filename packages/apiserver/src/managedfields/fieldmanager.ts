// Kubernetes' field manager: every write updates metadata.managedFields. An update (create, PUT, non-apply
// PATCH) gives its manager what it added or changed and takes it from the others; an apply owns exactly
// the fields of its configuration, conflicts (409) on fields another manager owns with a different value
// unless forced, and prunes the fields it stopped applying that nobody else owns.
import { formatTime, groupVersion, StatusError, type KubeObject, type ResourceInfo, type StatusCause } from '@kemu/api';
import { mergeApplied, prune } from './apply-merge.ts';
import { compare, toFieldSet, type Comparison } from './compute.ts';
import { decodeManagedFields, decodeOrEmpty, encodeManagedFields, capUpdateManagers, identifier, isReset, type Manager, type Managers } from './entries.ts';
import { FieldSet, pathString } from './fieldset.ts';
import { resetFields, STRIPPED, zeroSkeleton } from './schema.ts';

type Obj = Record<string, unknown>;

export interface FieldManagerScope {
  resource: ResourceInfo;
  /** 'status' or 'scale' for writes through those subresources. */
  subresource?: string;
  /** Wall-clock milliseconds of the write. */
  now: number;
}

let lastSecond = -1;
let lastTime = '';
/** formatTime, computed once a second: every write of that second shares it. */
function timeOf(ms: number): string {
  const sec = Math.floor(ms / 1000);
  if (sec !== lastSecond) {
    lastSecond = sec;
    lastTime = formatTime(ms);
  }
  return lastTime;
}

function asObj(o: KubeObject): Obj {
  return o as unknown as Obj;
}

/** decodeLiveOrNew: [] / [{}] reset; valid entries sent with the object are kept; otherwise the live ones. */
function liveOrNew(live: KubeObject | undefined, next: KubeObject, subresource: string | undefined): Managers {
  if (subresource !== undefined) return decodeOrEmpty(live?.metadata.managedFields);
  const sent = next.metadata.managedFields;
  if (isReset(sent)) return new Map();
  try {
    const m = decodeManagedFields(sent);
    if (m.size > 0) return m;
  } catch {
    // Undecodable managedFields from a client are replaced by the live object's, as Kubernetes does.
  }
  return decodeOrEmpty(live?.metadata.managedFields);
}

/** The comparison of a write, without the fields no manager owns. */
function changes(live: KubeObject | undefined, next: KubeObject, scope: FieldManagerScope): Comparison & { differs: boolean } {
  const r = scope.resource;
  const c = live ? compare(asObj(live), asObj(next), r) : compare({}, asObj(next), r, zeroSkeleton(r));
  const differs = !c.changed.isEmpty() || !c.removed.isEmpty();
  const reset = resetFields(r, scope.subresource);
  let changed = c.changed.difference(STRIPPED);
  let removed = c.removed.difference(STRIPPED);
  if (reset) {
    changed = changed.recursiveDifference(reset);
    removed = removed.recursiveDifference(reset);
  }
  return { changed, removed, differs };
}

function write(next: KubeObject, managers: Managers): void {
  capUpdateManagers(managers);
  const encoded = encodeManagedFields(managers);
  if (encoded) next.metadata.managedFields = encoded;
  else delete next.metadata.managedFields;
}

/** Records an Update by `manager` on next (live undefined for a create). */
export function recordUpdate(live: KubeObject | undefined, next: KubeObject, manager: string, scope: FieldManagerScope): void {
  const managers = liveOrNew(live, next, scope.subresource);
  const { changed, removed } = changes(live, next, scope);
  const apiVersion = groupVersion(scope.resource);
  const id = identifier({ manager, operation: 'Update', apiVersion, subresource: scope.subresource });
  for (const [key, m] of managers) {
    if (key === id) continue;
    m.set = m.set.difference(changed).difference(removed);
  }
  const prev = managers.get(id);
  if (!changed.isEmpty()) {
    const entry: Manager = { manager, operation: 'Update', apiVersion, time: timeOf(scope.now), set: prev ? prev.set.difference(removed).union(changed) : changed };
    if (scope.subresource) entry.subresource = scope.subresource;
    managers.set(id, entry);
  } else if (prev) {
    prev.set = prev.set.difference(removed);
  }
  write(next, managers);
}

export interface Conflict {
  manager: Manager;
  path: string[];
}

/** printManager: "name" [with subresource "s"] [using apps/v1 for updaters]. */
function printManager(m: Manager): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

/** Kubernetes' apply conflict: 409 Conflict, one FieldManagerConflict cause per field. */
export function conflictError(conflicts: Conflict[]): StatusError {
  const causes: StatusCause[] = conflicts.map((c) => ({ type: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) }));
  let message: string;
  const first = conflicts[0];
  if (conflicts.length === 1 && first) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(first.manager)}: ${pathString(first.path)}`;
  } else {
    const lines: string[] = [];
    let current: Manager | undefined;
    for (const c of conflicts) {
      if (c.manager !== current) {
        current = c.manager;
        lines.push(`conflicts with ${printManager(c.manager)}:`);
      }
      lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError('Conflict', message, { causes });
}

export interface PreparedApply {
  /** The merged (and pruned) object to store. */
  object: KubeObject;
  /** Checks conflicts against the final object and records the applier's entry on it; throws the 409. */
  record(live: KubeObject | undefined, next: KubeObject): void;
}

/**
 * Applies `config` (already checked: kind, name, no managedFields) over live (undefined: a create).
 * config becomes part of the result: pass a private copy. Throws FieldPathError when the configuration
 * cannot be keyed (a list item without its key).
 */
export function prepareApply(live: KubeObject | undefined, config: KubeObject, manager: string, force: boolean, scope: FieldManagerScope): PreparedApply {
  const r = scope.resource;
  const managers = decodeOrEmpty(live?.metadata.managedFields);
  const id = identifier({ manager, operation: 'Apply', apiVersion: '', subresource: scope.subresource });
  const reset = resetFields(r, scope.subresource);
  let set = toFieldSet(asObj(config), r).difference(STRIPPED);
  if (reset) set = set.recursiveDifference(reset);
  const last = managers.get(id);
  const object = (live ? mergeApplied(asObj(live), asObj(config), r) : config) as KubeObject;
  if (last && live) {
    let keep = set;
    for (const [key, m] of managers) if (key !== id) keep = keep.union(m.set);
    prune(asObj(object), last.set, keep, r);
  }
  return {
    object,
    record(liveNow, next) {
      const { changed, removed, differs } = changes(liveNow, next, scope);
      const conflicts: Conflict[] = [];
      const others = [...managers.entries()].filter(([key]) => key !== id).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [, m] of others) {
        const overlap = m.set.intersection(changed);
        for (const path of overlap.paths()) conflicts.push({ manager: m, path });
      }
      if (conflicts.length > 0 && !force) throw conflictError(conflicts);
      for (const [, m] of others) m.set = m.set.difference(changed).difference(removed);
      const entry: Manager = { manager, operation: 'Apply', apiVersion: groupVersion(r), set };
      if (scope.subresource) entry.subresource = scope.subresource;
      const time = differs ? timeOf(scope.now) : last?.time;
      if (time !== undefined) entry.time = time;
      managers.set(id, entry);
      write(next, managers);
    },
  };
}

export { FieldSet };
