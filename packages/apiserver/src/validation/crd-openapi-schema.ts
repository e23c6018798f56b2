// The OpenAPI-level rules apiextensions validation applies to every node of a CRD schema
// (ValidateCustomResourceDefinitionOpenAPISchema and specStandardValidatorV3): the supported types, no id, $ref,
// definitions, dependencies, patternProperties, additionalItems or item arrays, no uniqueItems, properties and
// additionalProperties mutually exclusive, defaults not under the root's metadata/apiVersion/kind nor in a
// metadata map, x-kubernetes-preserve-unknown-fields true or undefined, the list/map-type extensions and the
// x-kubernetes-validations entries' own fields. The CEL compilation of the rules is crd-schema-rules.ts'.
import type { StatusCause } from '@kemu/api';
import { asArray, asRecord, asString, fieldErrors, isRecord } from './field.ts';

type Schema = Record<string, unknown>;

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = ['metadata', 'kind', 'apiVersion'];
const RULE_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

interface Context {
  /** Why defaults are forbidden here ("in top-level metadata", ...), or undefined where they are allowed. */
  noDefaults?: string;
  insideResourceMeta: boolean;
}

const newlines = /[\n\r]+/;
const listOf = (v: unknown): string[] => (asArray(v) ?? []).map(String);

/** specStandardValidatorV3.validate: what OpenAPI v3 allows and Kubernetes does not. */
function standard(s: Schema, ctx: Context, path: string, out: StatusCause[]): void {
  const type = asString(s.type) ?? '';
  if (type !== '' && !OPENAPI_TYPES.includes(type)) out.push(fieldErrors.notSupported(`${path}.type`, type, OPENAPI_TYPES));
  if (s.default !== undefined && s.default !== null && ctx.noDefaults !== undefined) out.push(fieldErrors.forbidden(`${path}.default`, `must not be set ${ctx.noDefaults}`));
  if (asString(s.id)) out.push(fieldErrors.forbidden(`${path}.id`, 'id is not supported'));
  if (s.additionalItems !== undefined && s.additionalItems !== null) out.push(fieldErrors.forbidden(`${path}.additionalItems`, 'additionalItems is not supported'));
  if (Object.keys(asRecord(s.patternProperties) ?? {}).length > 0) out.push(fieldErrors.forbidden(`${path}.patternProperties`, 'patternProperties is not supported'));
  if (Object.keys(asRecord(s.definitions) ?? {}).length > 0) out.push(fieldErrors.forbidden(`${path}.definitions`, 'definitions is not supported'));
  if (isRecord(s.dependencies)) out.push(fieldErrors.forbidden(`${path}.dependencies`, 'dependencies is not supported'));
  if (typeof s.$ref === 'string') out.push(fieldErrors.forbidden(`${path}.$ref`, '$ref is not supported'));
  if (type === 'null') out.push(fieldErrors.forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0) out.push(fieldErrors.forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (ctx.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true)
    out.push(fieldErrors.forbidden(`${path}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta'));
}

function listAndMapTypes(s: Schema, path: string, out: StatusCause[]): void {
  const type = asString(s.type) ?? '';
  const mapType = s['x-kubernetes-map-type'];
  const listType = s['x-kubernetes-list-type'];
  const keys = listOf(s['x-kubernetes-list-map-keys']);
  const items = asRecord(s.items);
  const typed = (want: string, why: string) =>
    type === '' ? fieldErrors.required(`${path}.type`, `must be ${want} if ${why}`) : fieldErrors.invalid(`${path}.type`, type, `must be ${want} if ${why}`);
  if (mapType !== undefined && mapType !== null) {
    if (type !== 'object') out.push(typed('object', 'x-kubernetes-map-type is specified'));
    if (mapType !== 'atomic' && mapType !== 'granular') out.push(fieldErrors.notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
  if (listType !== undefined && listType !== null) {
    if (type !== 'array') out.push(typed('array', 'x-kubernetes-list-type is specified'));
    else if (listType === 'set' && items) {
      const itemList = items['x-kubernetes-list-type'];
      if (items.type === 'array' && itemList !== undefined && itemList !== 'atomic')
        out.push(fieldErrors.invalid(`${path}.items.x-kubernetes-list-type`, itemList, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
      // Kubernetes shows the item's list type here (nil for an object item).
      if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic')
        out.push(fieldErrors.invalid(`${path}.items.x-kubernetes-map-type`, itemList ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (listType !== 'atomic' && listType !== 'set' && listType !== 'map') out.push(fieldErrors.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  if (keys.length > 0) {
    if (listType === undefined || listType === null) out.push(fieldErrors.required(`${path}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') out.push(fieldErrors.invalid(`${path}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (keys.length === 0) out.push(fieldErrors.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (!items) out.push(fieldErrors.required(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    else if (items.type !== 'object') out.push(fieldErrors.invalid(`${path}.items.type`, asString(items.type) ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    else {
      const itemProps = asRecord(items.properties) ?? {};
      const seen = new Set<string>();
      for (const k of keys) {
        const p = asRecord(itemProps[k]);
        if (!p) out.push(fieldErrors.invalid(`${path}.x-kubernetes-list-map-keys`, keys, 'entries must all be names of item properties'));
        else if (p.type === 'array' || p.type === 'object')
          out.push(fieldErrors.invalid(`${path}.items.properties[${k}].type`, 'object', "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        if (seen.has(k)) out.push(fieldErrors.invalid(`${path}.x-kubernetes-list-map-keys`, keys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable === true) out.push(fieldErrors.forbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${String(listType)}`));
    if (listType === 'map') {
      const required = listOf(items.required);
      const itemProps = asRecord(items.properties) ?? {};
      for (const k of keys) {
        const p = asRecord(itemProps[k]);
        if (!p) continue;
        if (!required.includes(k) && (p.default === undefined || p.default === null))
          out.push(fieldErrors.required(`${path}.items.properties[${k}].default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        if (p.nullable === true) out.push(fieldErrors.forbidden(`${path}.items.properties[${k}].nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
}

/** The x-kubernetes-validations entries' own fields (their compilation is checked separately). */
function ruleFields(s: Schema, path: string, out: StatusCause[]): void {
  (asArray(s['x-kubernetes-validations']) ?? []).forEach((raw, i) => {
    const r = asRecord(raw) ?? {};
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const rule = (asString(r.rule) ?? '').trim();
    const message = asString(r.message) ?? '';
    const msg = message.trim();
    if (rule === '') out.push(fieldErrors.required(`${at}.rule`, 'rule is not specified'));
    else if (message.length > 0 && msg.length === 0) out.push(fieldErrors.invalid(`${at}.message`, message, 'must be non-empty if specified'));
    else if (newlines.test(msg)) out.push(fieldErrors.invalid(`${at}.message`, message, 'must not contain line breaks'));
    else if (newlines.test(rule) && msg.length === 0) out.push(fieldErrors.required(`${at}.message`, 'message must be specified if rule contains line breaks'));
    const expr = asString(r.messageExpression) ?? '';
    if (expr.length > 0 && expr.trim().length === 0) out.push(fieldErrors.required(`${at}.messageExpression`, 'messageExpression must be non-empty if specified'));
    const reason = asString(r.reason);
    if (reason !== undefined && !RULE_REASONS.includes(reason)) out.push(fieldErrors.notSupported(`${at}.reason`, reason, RULE_REASONS));
    const fieldPath = asString(r.fieldPath) ?? '';
    if (fieldPath.length > 0 && fieldPath.trim().length === 0) out.push(fieldErrors.invalid(`${at}.fieldPath`, fieldPath, 'must be non-empty if specified'));
    if (newlines.test(fieldPath)) out.push(fieldErrors.invalid(`${at}.fieldPath`, fieldPath, 'must not contain line breaks'));
  });
}

function walk(s: Schema, path: string, ctx: Context, root: boolean, out: StatusCause[]): void {
  standard(s, ctx, path, out);
  if (s.uniqueItems === true) out.push(fieldErrors.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const properties = Object.entries(asRecord(s.properties) ?? {}).filter((e): e is [string, Schema] => isRecord(e[1]));
  const additional = s.additionalProperties;
  if (additional !== undefined && additional !== null) {
    if (properties.length > 0 && (additional === false || isRecord(additional)))
      out.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    // Pruning a metadata map without a value is ambiguous: no defaults there.
    const sub = ctx.insideResourceMeta ? { ...ctx, noDefaults: 'inside additionalProperties applying to object metadata' } : ctx;
    if (isRecord(additional)) walk(additional, `${path}.additionalProperties`, sub, false, out);
  }
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  for (const [k, p] of properties) {
    let sub = ctx;
    if ((root || embedded) && META_FIELDS.includes(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (root) sub = { ...sub, noDefaults: `in top-level ${k}` };
    }
    walk(p, `${path}.properties[${k}]`, sub, false, out);
  }
  if (isRecord(s.not)) walk(s.not, `${path}.not`, ctx, false, out);
  for (const k of ['allOf', 'oneOf', 'anyOf'] as const) (asArray(s[k]) ?? []).forEach((n, i) => isRecord(n) && walk(n, `${path}.${k}[${i}]`, ctx, false, out));
  for (const [k, d] of Object.entries(asRecord(s.definitions) ?? {})) if (isRecord(d)) walk(d, `${path}.definitions[${k}]`, ctx, false, out);
  if (isRecord(s.items)) walk(s.items, `${path}.items`, ctx, false, out);
  else (asArray(s.items) ?? []).forEach((n, i) => isRecord(n) && walk(n, `${path}.items[${i}]`, ctx, false, out));
  for (const [k, d] of Object.entries(asRecord(s.dependencies) ?? {})) if (isRecord(d)) walk(d, `${path}.dependencies[${k}]`, ctx, false, out);
  if (s['x-kubernetes-preserve-unknown-fields'] === false) out.push(fieldErrors.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  listAndMapTypes(s, path, out);
  ruleFields(s, path, out);
}

/** The OpenAPI-level causes for a version's schema at path (`….openAPIV3Schema`). */
export function validateOpenAPISchema(schema: Schema, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  walk(schema, path, { insideResourceMeta: false }, true, out);
  return out;
}

/** Whether NewStructural can convert the schema at all (otherwise Kubernetes skips the structural checks). */
export function convertible(s: Schema): boolean {
  if (asString(s.id) || typeof s.$ref === 'string' || s.schema !== undefined || Object.keys(asRecord(s.patternProperties) ?? {}).length > 0) return false;
  if (isRecord(s.dependencies) || (s.additionalItems !== undefined && s.additionalItems !== null) || Array.isArray(s.items)) return false;
  if (s['x-kubernetes-preserve-unknown-fields'] === false) return false;
  const children: unknown[] = [s.items, s.not, ...Object.values(asRecord(s.properties) ?? {}), ...(asArray(s.allOf) ?? []), ...(asArray(s.anyOf) ?? []), ...(asArray(s.oneOf) ?? [])];
  if (isRecord(s.additionalProperties)) children.push(s.additionalProperties);
  return children.every((c) => !isRecord(c) || convertible(c));
}
