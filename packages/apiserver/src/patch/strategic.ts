// Strategic merge patch for the built-in kinds: lists merge by the key in meta.ts (or are replaced), null
// deletes, and the directives $patch (delete|replace|merge), $retainKeys, $setElementOrder/<list> and
// $deleteFromPrimitiveList/<list>. Unknown "$" directives are dropped, never stored.
import { errors } from '@kemu/api';
import type { ResourceInfo } from '@kemu/api';
import { isPlainObject } from './merge.ts';
import { listStrategy } from './meta.ts';
import type { ListStrategy } from './meta.ts';

type Obj = Record<string, unknown>;

const SET_ORDER = '$setElementOrder/';
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList/';

/** A patch value with every directive removed (what a replaced field stores). */
function clean(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => !(isPlainObject(x) && x.$patch !== undefined && Object.keys(x).length === 1)).map(clean);
  if (!isPlainObject(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith('$')) continue;
    if (x === null) continue;
    out[k] = clean(x);
  }
  return out;
}

export class SMPContext {
  constructor(readonly resource: ResourceInfo | undefined) {}
}

function mergeMap(original: unknown, patch: Obj, path: string[], ctx: SMPContext): Obj | undefined {
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  if (directive === 'replace') return clean(patch) as Obj;
  if (directive !== undefined && directive !== 'merge') throw errors.badRequest(`Unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`);
  const out: Obj = isPlainObject(original) ? { ...original } : {};
  const orders = new Map<string, unknown[]>();
  const deletions = new Map<string, unknown[]>();
  let retainKeys: string[] | undefined;
  for (const [k, v] of Object.entries(patch)) {
    // A directive that is not a list is mergepatch's ErrBadPatchFormatFor… error, a 400 in the patch handler.
    if (k.startsWith(SET_ORDER)) {
      if (!Array.isArray(v)) throw errors.badRequest('invalid patch format of setElementOrder list');
      orders.set(k.slice(SET_ORDER.length), v);
      continue;
    }
    if (k.startsWith(DELETE_PRIMITIVE)) {
      if (!Array.isArray(v)) throw errors.badRequest('invalid patch format of primitive list');
      deletions.set(k.slice(DELETE_PRIMITIVE.length), v);
      continue;
    }
    if (k === '$retainKeys') {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw errors.badRequest('invalid patch format of retainKeys');
      retainKeys = v;
      continue;
    }
    if (k.startsWith('$')) continue;
    const childPath = [...path, k];
    if (v === null) {
      delete out[k];
    } else if (isPlainObject(v)) {
      const merged = mergeMap(out[k], v, childPath, ctx);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else if (Array.isArray(v)) {
      out[k] = mergeList(out[k], v, listStrategy(ctx.resource, childPath), childPath, ctx);
    } else {
      out[k] = v;
    }
  }
  for (const [field, values] of deletions) {
    const cur = out[field];
    if (Array.isArray(cur)) out[field] = cur.filter((x) => !values.some((d) => d === x));
  }
  for (const [field, order] of orders) {
    const cur = out[field];
    const server = isPlainObject(original) && Array.isArray(original[field]) ? original[field] : [];
    if (Array.isArray(cur)) out[field] = applyOrder(cur, order, listStrategy(ctx.resource, [...path, field]), server);
  }
  // $retainKeys (retainKeys strategy, e.g. Deployment.spec.strategy): fields not listed are cleared.
  if (retainKeys !== undefined) {
    const keep = new Set(retainKeys);
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  return out;
}

function keyOf(item: unknown, key: string): unknown {
  return isPlainObject(item) ? item[key] : undefined;
}

function mergeList(original: unknown, patch: unknown[], strategy: ListStrategy, path: string[], ctx: SMPContext): unknown[] {
  // {"$patch": "replace"} anywhere in the list replaces the whole list with the other elements.
  if (patch.some((x) => isPlainObject(x) && x.$patch === 'replace')) return clean(patch.filter((x) => !(isPlainObject(x) && x.$patch === 'replace'))) as unknown[];
  const orig = Array.isArray(original) ? original : [];
  if (strategy.kind === 'replace') return clean(patch) as unknown[];
  if (strategy.kind === 'primitiveMerge') {
    const out = [...orig];
    for (const v of patch) if (!out.some((x) => x === v)) out.push(v);
    return out;
  }
  const key = strategy.key;
  const out: unknown[] = [...orig];
  for (const item of patch) {
    if (!isPlainObject(item)) {
      throw errors.badRequest(`unable to find api field in struct for the list element ${JSON.stringify(item)}: merge key "${key}" required`);
    }
    const kv = item[key];
    if (item.$patch === 'delete') {
      for (let i = out.length - 1; i >= 0; i--) if (keyOf(out[i], key) === kv) out.splice(i, 1);
      continue;
    }
    if (kv === undefined) throw errors.badRequest(`map: ${JSON.stringify(item)} does not contain declared merge key: ${key}`);
    const at = out.findIndex((x) => keyOf(x, key) === kv);
    if (at >= 0) {
      const merged = mergeMap(out[at], item, path, ctx);
      if (merged === undefined) out.splice(at, 1);
      else out[at] = merged;
    } else {
      const created = mergeMap(undefined, item, path, ctx);
      if (created !== undefined) out.push(created);
    }
  }
  return out;
}

/**
 * $setElementOrder, as Kubernetes orders a merged list: the listed elements in the given order, with the
 * elements not listed (e.g. added by another client) kept at their place relative to the server's list.
 */
function applyOrder(list: unknown[], order: unknown[], strategy: ListStrategy, serverList: unknown[]): unknown[] {
  const id = (x: unknown): unknown => (strategy.kind === 'merge' ? keyOf(x, strategy.key) : x);
  const orderIdx = new Map<unknown, number>();
  order.forEach((o, i) => orderIdx.set(id(o), i));
  const listed = list.filter((x) => orderIdx.has(id(x))).sort((a, b) => (orderIdx.get(id(a)) ?? 0) - (orderIdx.get(id(b)) ?? 0));
  const others = list.filter((x) => !orderIdx.has(id(x)));
  const serverIds = serverList.map(id);
  const serverIndex = (x: unknown): number => serverIds.indexOf(id(x));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < others.length || j < listed.length) {
    if (j >= listed.length) out.push(others[i++]);
    else if (i >= others.length) out.push(listed[j++]);
    else {
      const li = serverIndex(others[i]);
      const ri = serverIndex(listed[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(others[i++]);
      else out.push(listed[j++]);
    }
  }
  return out;
}

/** Applies a strategic merge patch to an object of `resource`. */
export function strategicMergePatch(original: unknown, patch: unknown, resource?: ResourceInfo): unknown {
  if (!isPlainObject(patch)) throw errors.badRequest('strategic merge patch body must be a JSON object');
  const out = mergeMap(structuredClone(original), patch, [], new SMPContext(resource));
  return out ?? {};
}
