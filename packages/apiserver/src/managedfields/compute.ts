// Field sets of objects, as structured-merge-diff computes them: toFieldSet (the fields an applied
// configuration sets) and compare (what an update added, modified and removed), keyed by schema.ts.
import type { ResourceInfo } from '@kemu/api';
import { isPlainObject } from '../patch/merge.ts';
import { FieldSet } from './fieldset.ts';
import { atomicMap, listType, type ListType } from './schema.ts';

type Obj = Record<string, unknown>;

/** A list element a configuration cannot be keyed by (e.g. a container without a name). */
export class FieldPathError extends Error {}

/** Never compared: the managed fields themselves and the version of the write. */
const SKIPPED_META = new Set(['managedFields', 'resourceVersion']);

function skipped(path: readonly string[], key: string): boolean {
  return path.length === 1 && path[0] === 'metadata' && SKIPPED_META.has(key);
}

function fieldPath(path: readonly string[]): string {
  return path.map((p) => `.${p}`).join('');
}

/** The path element of a list item: k:{"name":"x"} (keys sorted, defaults filled), v:"x" or i:N. */
export function itemElement(item: unknown, lt: ListType, index: number, path: readonly string[], strict: boolean): string {
  if (lt.kind === 'set') return `v:${JSON.stringify(item)}`;
  if (lt.kind === 'map') {
    if (isPlainObject(item)) {
      const key: Obj = {};
      for (const k of [...lt.keys].sort()) {
        const v = item[k] ?? lt.defaults?.[k];
        if (v !== undefined && v !== null) key[k] = v;
        else if (strict && lt.keys.length === 1) {
          throw new FieldPathError(`${fieldPath(path)}: element ${index}: associative list with keys has an element that omits key field "${k}" (and doesn't have default value)`);
        }
      }
      if (Object.keys(key).length > 0) return `k:${JSON.stringify(key)}`;
    }
    if (strict) throw new FieldPathError(`${fieldPath(path)}: element ${index}: associative list with keys has an element that omits key field "${lt.keys[0] ?? ''}" (and doesn't have default value)`);
  }
  return `i:${index}`;
}

/** The fields a configuration sets (Kubernetes' ToFieldSet): leaves, empty maps, list items, atomic values. */
export function toFieldSet(obj: Obj, r: ResourceInfo | undefined): FieldSet {
  return mapSet(obj, [], r);
}

function mapSet(obj: Obj, path: string[], r: ResourceInfo | undefined): FieldSet {
  const s = new FieldSet();
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    const pe = `f:${k}`;
    path.push(k);
    if (Array.isArray(v)) {
      const lt = listType(r, path);
      if (lt.kind === 'atomic') s.members.add(pe);
      else s.attach(pe, listSet(v, lt, path, r));
    } else if (isPlainObject(v)) {
      if (Object.keys(v).length === 0 || atomicMap(r, path)) s.members.add(pe);
      else s.attach(pe, mapSet(v, path, r));
    } else if (v !== undefined) {
      s.members.add(pe);
    }
    path.pop();
  }
  return s;
}

function listSet(list: unknown[], lt: ListType, path: string[], r: ResourceInfo | undefined): FieldSet {
  const s = new FieldSet();
  list.forEach((item, i) => {
    const pe = itemElement(item, lt, i, path, true);
    s.members.add(pe);
    if (lt.kind === 'map' && !lt.atomicItems && isPlainObject(item)) s.attach(pe, mapSet(item, path, r));
  });
  return s;
}

/** Adds under pe of s every node below v as a member (an added or removed subtree). */
function addSubtree(s: FieldSet, pe: string, v: unknown, path: string[], r: ResourceInfo | undefined): void {
  if (typeof v === 'object' && v !== null) s.attach(pe, subtree(v, path, r));
}

/** Every node below a value, as members. */
function subtree(v: unknown, path: string[], r: ResourceInfo | undefined): FieldSet {
  const s = new FieldSet();
  if (isPlainObject(v)) {
    if (atomicMap(r, path)) return s;
    for (const k of Object.keys(v)) {
      path.push(k);
      s.members.add(`f:${k}`);
      addSubtree(s, `f:${k}`, v[k], path, r);
      path.pop();
    }
  } else if (Array.isArray(v)) {
    const lt = listType(r, path);
    if (lt.kind === 'atomic') return s;
    v.forEach((item, i) => {
      const pe = itemElement(item, lt, i, path, false);
      s.members.add(pe);
      if (lt.kind === 'map' && !lt.atomicItems) addSubtree(s, pe, item, path, r);
    });
  }
  return s;
}

export interface Comparison {
  /** Added or modified paths (an added map or list item is a member, with everything below it). */
  changed: FieldSet;
  removed: FieldSet;
}

/**
 * What changed from `old` to `next`. `skeleton` holds the struct fields the kind's zero value has, so
 * filling them is not an addition of the struct itself (see schema.zeroSkeleton).
 */
export function compare(old: Obj, next: Obj, r: ResourceInfo | undefined, skeleton?: Obj): Comparison {
  const c: Comparison = { changed: new FieldSet(), removed: new FieldSet() };
  compareMaps(old, next, skeleton, [], r, c);
  return c;
}

function compareMaps(o: Obj, n: Obj, sk: Obj | undefined, path: string[], r: ResourceInfo | undefined, c: Comparison): void {
  for (const k of Object.keys(n)) {
    if (skipped(path, k)) continue;
    const nv = n[k];
    if (nv === undefined) continue;
    const pe = `f:${k}`;
    path.push(k);
    const ov = Object.hasOwn(o, k) ? o[k] : undefined;
    const skv = sk?.[k];
    if (ov === undefined && !(isPlainObject(skv) && isPlainObject(nv))) {
      c.changed.members.add(pe);
      addSubtree(c.changed, pe, nv, path, r);
    } else {
      // Only an absent value stands for the kind's zero struct: a stored null (a template's
      // `creationTimestamp: null`, as kubectl rollout undo copies it from a ReplicaSet) is a value, equal to
      // itself; read as {} it differed on every write, and whoever wrote last became its owner.
      compareValues(ov === undefined ? {} : ov, nv, isPlainObject(skv) ? skv : undefined, pe, path, r, c);
    }
    path.pop();
  }
  for (const k of Object.keys(o)) {
    if (Object.hasOwn(n, k) && n[k] !== undefined) continue;
    if (skipped(path, k) || o[k] === undefined) continue;
    path.push(k);
    c.removed.members.add(`f:${k}`);
    addSubtree(c.removed, `f:${k}`, o[k], path, r);
    path.pop();
  }
}

function compareValues(ov: unknown, nv: unknown, sk: Obj | undefined, pe: string, path: string[], r: ResourceInfo | undefined, c: Comparison): void {
  if (isPlainObject(ov) && isPlainObject(nv) && !atomicMap(r, path)) {
    const sub: Comparison = { changed: new FieldSet(), removed: new FieldSet() };
    compareMaps(ov, nv, sk, path, r, sub);
    c.changed.attach(pe, sub.changed);
    c.removed.attach(pe, sub.removed);
    return;
  }
  if (Array.isArray(ov) && Array.isArray(nv)) {
    const lt = listType(r, path);
    if (lt.kind !== 'atomic') {
      const sub = compareLists(ov, nv, lt, path, r);
      c.changed.attach(pe, sub.changed);
      c.removed.attach(pe, sub.removed);
      return;
    }
  }
  if (!deepEqual(ov, nv)) c.changed.members.add(pe);
}

function compareLists(ol: unknown[], nl: unknown[], lt: ListType, path: string[], r: ResourceInfo | undefined): Comparison {
  const c: Comparison = { changed: new FieldSet(), removed: new FieldSet() };
  const old = new Map<string, unknown>();
  ol.forEach((item, i) => {
    const pe = itemElement(item, lt, i, path, false);
    if (!old.has(pe)) old.set(pe, item);
  });
  const seen = new Set<string>();
  nl.forEach((item, i) => {
    const pe = itemElement(item, lt, i, path, false);
    if (seen.has(pe)) return;
    seen.add(pe);
    const granular = lt.kind === 'map' && !lt.atomicItems;
    if (!old.has(pe)) {
      c.changed.members.add(pe);
      if (granular) addSubtree(c.changed, pe, item, path, r);
      return;
    }
    const oi = old.get(pe);
    if (granular && isPlainObject(oi) && isPlainObject(item)) {
      const sub: Comparison = { changed: new FieldSet(), removed: new FieldSet() };
      compareMaps(oi, item, undefined, path, r, sub);
      c.changed.attach(pe, sub.changed);
      c.removed.attach(pe, sub.removed);
    } else if (!deepEqual(oi, item)) {
      c.changed.members.add(pe);
    }
  });
  for (const [pe, item] of old) {
    if (seen.has(pe)) continue;
    c.removed.members.add(pe);
    if (lt.kind === 'map' && !lt.atomicItems) addSubtree(c.removed, pe, item, path, r);
  }
  return c;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Obj;
  const bo = b as Obj;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!Object.hasOwn(bo, k) || !deepEqual(ao[k], bo[k])) return false;
  return true;
}
