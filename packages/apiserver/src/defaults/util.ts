// Small helpers for in-place defaulting of untrusted JSON objects.
export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object at parent[key], created when absent or not an object. */
export function ensureObj(parent: Obj, key: string): Obj {
  const v = parent[key];
  if (isObj(v)) return v;
  const o: Obj = {};
  parent[key] = o;
  return o;
}

/** Sets parent[key] = value when it is absent, null or "". */
export function setDefault(parent: Obj, key: string, value: unknown): void {
  const v = parent[key];
  if (v === undefined || v === null || v === '') parent[key] = value;
}

export function objects(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}
