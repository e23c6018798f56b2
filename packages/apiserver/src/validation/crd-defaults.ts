// The defaults of a structural CRD schema must be valid values (apiextensions-apiserver's defaulting.ValidateDefaults):
// each `default` must validate against its own node's schema, and outside object meta it must already be pruned
// (`must not have unknown fields`), since defaulting runs after pruning and would otherwise bring back dropped fields.
import type { StatusCause } from '@kemu/api';
import { validateAgainstSchema } from '../crd/schema-validator.ts';
import { pruneValueBySchema } from '../crd/structural.ts';
import { asRecord, fieldErrors, isRecord } from './field.ts';
import { GoValue } from './goformat.ts';

type Schema = Record<string, unknown>;
const META_FIELDS = ['metadata', 'kind', 'apiVersion'];

/** Go's %#v of a decoded JSON value, as field.Invalid prints a default. */
function goJSON(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (Array.isArray(v)) return `[]interface {}{${v.map(goJSON).join(', ')}}`;
  if (isRecord(v))
    return `map[string]interface {}{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goJSON(v[k])}`)
      .join(', ')}}`;
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}
const shown = (v: unknown): unknown => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : new GoValue(goJSON(v)));

function walk(s: Schema, path: string, insideMeta: boolean, out: StatusCause[]): void {
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (embedded) insideMeta = false;
  const def = s.default;
  if (def !== undefined && def !== null) {
    const at = `${path}.default`;
    if (!insideMeta) {
      const pruned = structuredClone(def);
      if (pruneValueBySchema(pruned, s).length > 0) out.push(fieldErrors.invalid(at, shown(def), 'must not have unknown fields'));
    }
    // The validator names fields relative to the value; Kubernetes puts them under the default's path (a
    // default's own value has no name in the message).
    for (const c of validateAgainstSchema(structuredClone(def), s))
      out.push({ ...c, field: c.field ? `${at}.${c.field}` : at, message: c.message?.replace(':  in body', ': in body') });
  }
  // Defaults are forbidden under additionalProperties' metadata maps and not followed there.
  if (isRecord(s.items)) walk(s.items, `${path}.items`, insideMeta, out);
  for (const [k, p] of Object.entries(asRecord(s.properties) ?? {}))
    if (isRecord(p)) walk(p, `${path}.properties[${k}]`, insideMeta || (embedded && META_FIELDS.includes(k)), out);
}

/** The causes why the defaults of the resource schema at path are not valid. */
export function validateDefaults(schema: Schema, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  // The resource root is an embedded resource: apiVersion, kind and metadata are object meta.
  walk({ ...schema, 'x-kubernetes-embedded-resource': true }, path, false, out);
  return out;
}
