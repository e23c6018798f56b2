// The JSON field names each kind accepts, read from the same field-number tables the protobuf decoder uses
// (one source of truth). Unknown fields are what Go's strict JSON decoding reports; a table naming fields it
// leaves out (`unlisted`), special types (Time, Quantity, IntOrString, FieldsV1) and maps are not checked.
import type { Field, Message } from './schema.ts';
import { protobufSchema } from './kinds.ts';

export interface FieldView {
  readonly fields: ReadonlyMap<string, Field>;
  readonly unlisted: ReadonlySet<string> | 'any';
}

const views = new WeakMap<Message, FieldView>();

/** A message's JSON fields by name (inline structs flattened into their parent), cached. */
export function viewOf(m: Message): FieldView {
  const cached = views.get(m);
  if (cached) return cached;
  const fields = new Map<string, Field>();
  let unlisted: Set<string> | 'any' = new Set(m.unlisted === 'any' ? [] : (m.unlisted ?? []));
  if (m.unlisted === 'any') unlisted = 'any';
  for (const f of Object.values(m.fields)) {
    if (f.inline && typeof f.type === 'object' && 'msg' in f.type) {
      // An inline struct's fields are the parent's own JSON fields.
      const inner = viewOf(f.type.msg());
      for (const [k, v] of inner.fields) fields.set(k, v);
      if (inner.unlisted === 'any') unlisted = 'any';
      else if (unlisted !== 'any') for (const k of inner.unlisted) unlisted.add(k);
    } else fields.set(f.name, f);
  }
  const v = { fields, unlisted };
  views.set(m, v);
  return v;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function walk(obj: Record<string, unknown>, m: Message, path: string, root: boolean, out: string[]): void {
  const view = viewOf(m);
  for (const [k, value] of Object.entries(obj)) {
    const f = view.fields.get(k);
    const at = path === '' ? k : `${path}.${k}`;
    if (!f) {
      if (root && (k === 'apiVersion' || k === 'kind')) continue;
      if (view.unlisted === 'any' || view.unlisted.has(k)) continue;
      out.push(at);
      delete obj[k];
      continue;
    }
    if (typeof f.type !== 'object' || !('msg' in f.type)) continue;
    const child = f.type.msg();
    if (child.toJSON) continue;
    if (f.repeated) {
      if (Array.isArray(value)) value.forEach((item, i) => isObject(item) && walk(item, child, `${at}[${i}]`, false, out));
    } else if (isObject(value)) walk(value, child, at, false, out);
  }
}

/** Whether the kind's fields are known (it has a table). */
export function hasFieldTable(apiVersion: string, kind: string): boolean {
  return protobufSchema(apiVersion, kind) !== undefined && kind !== 'DeleteOptions';
}

/**
 * Removes the fields `obj` (a JSON object of apiVersion/kind) has that its Go type does not, and returns their
 * paths in Go's form (`spec.containers[0].imagePullPolice`), in document order. Kinds without a table: [].
 */
export function pruneUnknownFields(obj: Record<string, unknown>, apiVersion: string, kind: string): string[] {
  if (!hasFieldTable(apiVersion, kind)) return [];
  const m = protobufSchema(apiVersion, kind);
  if (!m) return [];
  const out: string[] = [];
  walk(obj, m, '', true, out);
  return out;
}
