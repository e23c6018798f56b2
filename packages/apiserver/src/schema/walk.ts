// Reading a schema by JSON name: a struct's fields (inline structs flattened into their parent, as Go's JSON
// does) and what sits at a path of field names from the root (list positions omitted, map keys included).
import type { Field, Struct } from './types.ts';

export interface FieldView {
  readonly fields: ReadonlyMap<string, Field>;
  readonly unlisted: ReadonlySet<string> | 'any';
}

const views = new WeakMap<Struct, FieldView>();

/** A struct's JSON fields by name, inline structs flattened, cached. */
export function fieldsOf(s: Struct): FieldView {
  const cached = views.get(s);
  if (cached) return cached;
  const fields = new Map<string, Field>();
  let unlisted: Set<string> | 'any' = s.unlisted === 'any' ? 'any' : new Set(s.unlisted ?? []);
  for (const f of Object.values(s.fields)) {
    const t = f.type;
    if (f.inline && typeof t === 'object' && 'struct' in t) {
      const inner = fieldsOf(t.struct());
      for (const [k, v] of inner.fields) fields.set(k, v);
      if (inner.unlisted === 'any') unlisted = 'any';
      else if (unlisted !== 'any') for (const k of inner.unlisted) unlisted.add(k);
    } else fields.set(f.name, f);
  }
  const v = { fields, unlisted };
  views.set(s, v);
  return v;
}

/** The struct a field holds (its items' for a list, its values' for a map), if any. */
export function structOf(f: Field): Struct | undefined {
  const t = f.type;
  if (typeof t !== 'object') return undefined;
  if ('struct' in t) return t.struct();
  return typeof t.map === 'object' ? t.map.struct() : undefined;
}

export interface Position {
  /** The field the path ends on (undefined when it ends on a map value). */
  readonly field?: Field;
  /** The struct of the value there: the field's struct, a list item's, or a map value's. */
  readonly struct?: Struct;
}

/** What sits at `path` under `root`; undefined for a path the schema does not know. */
export function positionAt(root: Struct, path: readonly string[]): Position | undefined {
  let struct: Struct | undefined = root;
  let mapField: Field | undefined;
  let field: Field | undefined;
  for (const seg of path) {
    if (mapField) {
      // seg is a map key: the position is the map's value.
      field = undefined;
      struct = structOf(mapField);
      mapField = undefined;
      continue;
    }
    if (!struct) return undefined;
    field = fieldsOf(struct).fields.get(seg);
    if (!field) return undefined;
    const t = field.type;
    if (typeof t === 'object' && 'map' in t) {
      mapField = field;
      struct = undefined;
    } else struct = structOf(field);
  }
  if (mapField) return { field: mapField };
  return field ? { field, ...(struct ? { struct } : {}) } : struct ? { struct } : {};
}
