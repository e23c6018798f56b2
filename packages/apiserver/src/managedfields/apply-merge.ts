// The object side of server-side apply: merge an applied configuration into the live object (maps by
// field, keyed lists by key, sets by value, atomic values replaced), and prune what the applier set last
// time, dropped now, and nobody else owns.
import type { ResourceInfo } from '@kemu/api';
import { isPlainObject } from '../patch/merge.ts';
import { itemElement } from './compute.ts';
import type { FieldSet } from './fieldset.ts';
import { atomicMap, listType } from './schema.ts';

type Obj = Record<string, unknown>;

/** live with config merged in; neither is changed (unchanged parts of live are shared). null removes a field. */
export function mergeApplied(live: Obj, config: Obj, r: ResourceInfo | undefined): Obj {
  return mergeMaps(live, config, [], r);
}

function mergeMaps(live: Obj, config: Obj, path: string[], r: ResourceInfo | undefined): Obj {
  const out: Obj = { ...live };
  for (const k of Object.keys(config)) {
    const cv = config[k];
    if (cv === undefined) continue;
    if (cv === null) {
      delete out[k];
      continue;
    }
    path.push(k);
    out[k] = mergeValues(live[k], cv, path, r);
    path.pop();
  }
  return out;
}

function mergeValues(lv: unknown, cv: unknown, path: string[], r: ResourceInfo | undefined): unknown {
  if (isPlainObject(lv) && isPlainObject(cv) && !atomicMap(r, path)) return mergeMaps(lv, cv, path, r);
  if (Array.isArray(lv) && Array.isArray(cv)) {
    const lt = listType(r, path);
    if (lt.kind === 'atomic') return cv;
    const out = [...lv];
    const at = new Map<string, number>();
    out.forEach((item, i) => {
      const pe = itemElement(item, lt, i, path, false);
      if (!at.has(pe)) at.set(pe, i);
    });
    cv.forEach((item, i) => {
      const pe = itemElement(item, lt, i, path, false);
      const j = at.get(pe);
      if (j === undefined) {
        at.set(pe, out.length);
        out.push(item);
      } else if (lt.kind === 'map' && !lt.atomicItems && isPlainObject(out[j]) && isPlainObject(item)) {
        out[j] = mergeMaps(out[j] as Obj, item, path, r);
      } else {
        out[j] = item;
      }
    });
    return out;
  }
  return cv;
}

/**
 * Removes from obj (in place) what `last` holds and `keep` does not: a member is kept when keep has it or
 * owns anything below it. A map or list emptied by the removal goes too.
 */
export function prune(obj: Obj, last: FieldSet, keep: FieldSet | undefined, r: ResourceInfo | undefined): void {
  pruneMap(obj, last, keep, [], r);
}

function kept(keep: FieldSet | undefined, pe: string): boolean {
  return keep !== undefined && (keep.members.has(pe) || keep.children.has(pe));
}

function pruneMap(obj: Obj, last: FieldSet, keep: FieldSet | undefined, path: string[], r: ResourceInfo | undefined): void {
  for (const pe of last.members) {
    if (!pe.startsWith('f:') || kept(keep, pe)) continue;
    delete obj[pe.slice(2)];
  }
  for (const [pe, sub] of last.children) {
    if (!pe.startsWith('f:')) continue;
    const k = pe.slice(2);
    const v = obj[k];
    const subKeep = keep?.children.get(pe);
    path.push(k);
    if (isPlainObject(v)) {
      pruneMap(v, sub, subKeep, path, r);
      if (Object.keys(v).length === 0 && !kept(keep, pe)) delete obj[k];
    } else if (Array.isArray(v)) {
      const pruned = pruneList(v, sub, subKeep, path, r);
      if (pruned.length === 0 && v.length > 0 && !kept(keep, pe)) delete obj[k];
      else obj[k] = pruned;
    }
    path.pop();
  }
}

function pruneList(list: unknown[], last: FieldSet, keep: FieldSet | undefined, path: string[], r: ResourceInfo | undefined): unknown[] {
  const lt = listType(r, path);
  if (lt.kind === 'atomic') return list;
  const out: unknown[] = [];
  list.forEach((item, i) => {
    const pe = itemElement(item, lt, i, path, false);
    if (last.members.has(pe) && !kept(keep, pe)) return;
    const sub = last.children.get(pe);
    if (sub && isPlainObject(item)) pruneMap(item, sub, keep?.children.get(pe), path, r);
    out.push(item);
  });
  return out;
}
