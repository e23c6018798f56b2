// The JSON field names each kind accepts, read from its schema. Unknown fields are what Go's strict JSON decoding
// reports; a struct naming fields it leaves out (`unlisted`), special types (Time, Quantity, IntOrString, FieldsV1)
// and maps are not checked.
import { schemaOf, type Struct } from '../schema/index.ts';
import { fieldsOf, structOf } from '../schema/walk.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function walk(obj: Record<string, unknown>, s: Struct, path: string, root: boolean, out: string[]): void {
  const view = fieldsOf(s);
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
    if (typeof f.type !== 'object' || !('struct' in f.type)) continue;
    const child = structOf(f);
    if (!child || child.format) continue;
    if (f.repeated) {
      if (Array.isArray(value)) value.forEach((item, i) => isObject(item) && walk(item, child, `${at}[${i}]`, false, out));
    } else if (isObject(value)) walk(value, child, at, false, out);
  }
}

/**
 * Decodes a kind the built-in schemas do not know (custom resources): prunes obj's unknown fields, returning
 * their paths, and applies its defaults; undefined when the decoder does not know the kind.
 */
export type KindDecoder = (obj: Record<string, unknown>, apiVersion: string, kind: string) => string[] | undefined;
const decoders: KindDecoder[] = [];

export function registerKindDecoder(d: KindDecoder): void {
  if (!decoders.includes(d)) decoders.push(d);
}

/** Whether the kind's fields are known (it has a schema). */
export function hasFieldTable(apiVersion: string, kind: string): boolean {
  return kind !== 'DeleteOptions' && schemaOf(apiVersion, kind) !== undefined;
}

/**
 * Removes the fields `obj` (a JSON object of apiVersion/kind) has that its Go type does not, and returns their
 * paths in Go's form (`spec.containers[0].imagePullPolice`), in document order. Kinds without a schema: [].
 */
export function pruneUnknownFields(obj: Record<string, unknown>, apiVersion: string, kind: string): string[] {
  const s = kind === 'DeleteOptions' ? undefined : schemaOf(apiVersion, kind);
  if (!s) {
    for (const d of decoders) {
      const pruned = d(obj, apiVersion, kind);
      if (pruned) return pruned;
    }
    return [];
  }
  const out: string[] = [];
  walk(obj, s, '', true, out);
  return out;
}
