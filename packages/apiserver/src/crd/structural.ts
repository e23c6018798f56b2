// Pruning and defaulting of custom resources by their version's structural schema, as apiextensions-apiserver's
// structural/pruning and structural/defaulting do when an object is decoded from a request: fields the schema
// does not specify are dropped (unless x-kubernetes-preserve-unknown-fields), apiVersion, kind and metadata
// stay at the root and in x-kubernetes-embedded-resource objects, then absent fields get their `default`.
import { asRecord, isRecord } from '../validation/field.ts';

type Schema = Record<string, unknown>;

/**
 * Removes obj's fields its schema does not specify and returns their paths (`spec.foo`, `spec.items[0].bar`),
 * in document order: what fieldValidation reports as unknown fields.
 */
export function pruneBySchema(obj: Record<string, unknown>, schema: Schema): string[] {
  const out: string[] = [];
  pruneObject(obj, schema, '', true, out);
  return out;
}

/** Prunes any JSON value by a schema node (an object under x-kubernetes-embedded-resource keeps its type and object meta). */
export function pruneValueBySchema(v: unknown, schema: Schema): string[] {
  const out: string[] = [];
  pruneValue(v, schema, '', out);
  return out;
}

function pruneObject(obj: Record<string, unknown>, s: Schema, path: string, root: boolean, out: string[]): void {
  const props = asRecord(s.properties);
  const additional = s.additionalProperties;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = root || s['x-kubernetes-embedded-resource'] === true;
  for (const [k, v] of Object.entries(obj)) {
    const at = path === '' ? k : `${path}.${k}`;
    if (embedded && (k === 'apiVersion' || k === 'kind' || k === 'metadata') && !(props && k in props)) continue;
    const child = props && isRecord(props[k]) ? props[k] : isRecord(additional) ? additional : undefined;
    if (child) {
      pruneValue(v, child, at, out);
      continue;
    }
    if (preserve || additional === true) continue;
    out.push(at);
    delete obj[k];
  }
}

function pruneValue(v: unknown, s: Schema, path: string, out: string[]): void {
  if (Array.isArray(v)) {
    const items = asRecord(s.items);
    if (items) v.forEach((item, i) => pruneValue(item, items, `${path}[${i}]`, out));
  } else if (isRecord(v)) {
    // A schema without properties or additionalProperties (and no preserve) keeps nothing of an object, as
    // Kubernetes; an int-or-string or a value without a type has nothing to prune.
    if (s.properties === undefined && s.additionalProperties === undefined && s.type !== 'object') return;
    pruneObject(v, s, path, false, out);
  }
}

/** Sets the schema's defaults on absent fields (and null ones that are not nullable), depth first. */
export function applyDefaults(v: unknown, s: Schema): void {
  if (Array.isArray(v)) {
    const items = asRecord(s.items);
    if (items) for (const item of v) applyDefaults(item, items);
    return;
  }
  if (!isRecord(v)) return;
  const props = asRecord(s.properties);
  if (props) {
    for (const [k, ps] of Object.entries(props)) {
      if (!isRecord(ps)) continue;
      const absent = !(k in v) || (v[k] === null && ps.nullable !== true);
      if (absent && ps.default !== undefined) v[k] = structuredClone(ps.default);
      if (k in v) applyDefaults(v[k], ps);
    }
  }
  const additional = asRecord(s.additionalProperties);
  if (additional) for (const [k, child] of Object.entries(v)) if (!props || !(k in props)) applyDefaults(child, additional);
}
