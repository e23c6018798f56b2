// CRD schema validation as apiextensions validateCustomResourceDefinitionValidation runs it for each schema: the
// root restrictions of a status subresource and of nullable, then (when the schema converts to a structural one)
// the structural rules (crd-structural.ts) and, if they hold, the defaults (crd-defaults.ts); the OpenAPI-level
// rules on every node (crd-openapi-schema.ts); and, only for a valid structural schema and where a node's subtree
// has no schema error, the compilation of its x-kubernetes-validations rules and messageExpressions. Paths as
// Kubernetes' internal version names them: when every version has the same schema it is hoisted to
// spec.validation (`spec.validation.openAPIV3Schema`), otherwise each stays at `spec.versions[i].schema.openAPIV3Schema`.
import type { StatusCause } from '@kemu/api';
import { rulesOf } from '../crd/cel-rules.ts';
import { validateDefaults } from './crd-defaults.ts';
import { convertible, validateOpenAPISchema } from './crd-openapi-schema.ts';
import { validateStructural } from './crd-structural.ts';
import { asArray, asRecord, asString, fieldErrors, isRecord } from './field.ts';
import { GoValue } from './goformat.ts';

type Schema = Record<string, unknown>;

/** Go's %#v of an apiextensions.ValidationRule (pointers that are set cannot be shown; kemu shows `(…)`). */
function goRule(r: Schema): GoValue {
  const s = (k: string): string => JSON.stringify(asString(r[k]) ?? '');
  const reason = asString(r.reason) ? '(*apiextensions.FieldValueErrorReason)(…)' : '(*apiextensions.FieldValueErrorReason)(nil)';
  const optional = typeof r.optionalOldSelf === 'boolean' ? '(*bool)(…)' : '(*bool)(nil)';
  return new GoValue(`apiextensions.ValidationRule{Rule:${s('rule')}, Message:${s('message')}, MessageExpression:${s('messageExpression')}, Reason:${reason}, FieldPath:${s('fieldPath')}, OptionalOldSelf:${optional}}`);
}

/** The internal JSONSchemaProps fields in declaration order, by their JSON names (the status-root check reports the first). */
const ROOT_FIELDS: [string, string][] = [
  ['id', 'ID'], ['$schema', 'Schema'], ['$ref', 'Ref'], ['description', 'Description'], ['type', 'Type'], ['nullable', 'Nullable'],
  ['format', 'Format'], ['title', 'Title'], ['default', 'Default'], ['maximum', 'Maximum'], ['exclusiveMaximum', 'ExclusiveMaximum'],
  ['minimum', 'Minimum'], ['exclusiveMinimum', 'ExclusiveMinimum'], ['maxLength', 'MaxLength'], ['minLength', 'MinLength'],
  ['pattern', 'Pattern'], ['maxItems', 'MaxItems'], ['minItems', 'MinItems'], ['uniqueItems', 'UniqueItems'], ['multipleOf', 'MultipleOf'],
  ['enum', 'Enum'], ['maxProperties', 'MaxProperties'], ['minProperties', 'MinProperties'], ['required', 'Required'], ['items', 'Items'],
  ['allOf', 'AllOf'], ['oneOf', 'OneOf'], ['anyOf', 'AnyOf'], ['not', 'Not'], ['properties', 'Properties'],
  ['additionalProperties', 'AdditionalProperties'], ['patternProperties', 'PatternProperties'], ['dependencies', 'Dependencies'],
  ['additionalItems', 'AdditionalItems'], ['definitions', 'Definitions'], ['externalDocs', 'ExternalDocs'], ['example', 'Example'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields'], ['x-kubernetes-embedded-resource', 'XEmbeddedResource'],
  ['x-kubernetes-int-or-string', 'XIntOrString'], ['x-kubernetes-list-map-keys', 'XListMapKeys'], ['x-kubernetes-list-type', 'XListType'],
  ['x-kubernetes-map-type', 'XMapType'], ['x-kubernetes-validations', 'XValidations'],
];
const ALLOWED_AT_STATUS_ROOT = ['Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations'];
/** Value fields Go holds as plain bools or strings: false and "" are their zero values; the rest are pointers, maps or slices. */
const PLAIN = new Set(['ID', 'Schema', 'Description', 'Type', 'Nullable', 'Format', 'Title', 'ExclusiveMaximum', 'ExclusiveMinimum', 'Pattern', 'UniqueItems', 'XEmbeddedResource', 'XIntOrString']);

/** With a status subresource the root may only hold what still applies once status is validated on its own. */
function statusRoot(s: Schema, path: string): StatusCause[] {
  for (const [json, go] of ROOT_FIELDS) {
    const v = s[json];
    if (v === undefined || v === null || (PLAIN.has(go) && (v === false || v === ''))) continue;
    if (go === 'Type') {
      if (v !== 'object') return [fieldErrors.invalid(`${path}.type`, v, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
      continue;
    }
    // Kubernetes prints the whole schema struct; kemu names its type.
    if (!ALLOWED_AT_STATUS_ROOT.includes(go))
      return [fieldErrors.invalid(path, new GoValue('apiextensions.JSONSchemaProps{…}'), `only [${ALLOWED_AT_STATUS_ROOT.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`)];
  }
  return [];
}

/** Compile errors of the rules of every node whose subtree has no schema error. */
function compileRules(s: Schema, path: string, schemaErrors: StatusCause[], out: StatusCause[]): void {
  for (const [k, p] of Object.entries(asRecord(s.properties) ?? {})) if (isRecord(p)) compileRules(p, `${path}.properties[${k}]`, schemaErrors, out);
  if (isRecord(s.items)) compileRules(s.items, `${path}.items`, schemaErrors, out);
  if (isRecord(s.additionalProperties)) compileRules(s.additionalProperties, `${path}.additionalProperties`, schemaErrors, out);
  const raw = (asArray(s['x-kubernetes-validations']) ?? []).filter(isRecord);
  if (raw.length === 0 || schemaErrors.some((e) => e.field === path || e.field?.startsWith(`${path}.`))) return;
  rulesOf(s).forEach((r, i) => {
    const rule = raw[i];
    if (r.compileError && rule) out.push(fieldErrors.invalid(`${path}.x-kubernetes-validations[${i}].rule`, goRule(rule), r.compileError));
  });
}

/** One schema (`<path>.openAPIV3Schema`), path being spec.validation or spec.versions[i].schema. */
function validateSchema(schema: Schema, path: string, statusEnabled: boolean): StatusCause[] {
  const at = `${path}.openAPIV3Schema`;
  const out: StatusCause[] = statusEnabled ? statusRoot(schema, at) : [];
  if (schema.nullable === true) out.push(fieldErrors.forbidden(`${at}.nullable`, 'nullable cannot be true at the root'));
  let structural = false;
  if (convertible(schema)) {
    const notStructural = validateStructural(schema, at);
    const badDefaults = notStructural.length === 0 ? validateDefaults(schema, at) : [];
    out.push(...notStructural, ...badDefaults);
    structural = notStructural.length === 0 && badDefaults.length === 0;
  }
  const schemaErrors = validateOpenAPISchema(schema, at);
  out.push(...schemaErrors);
  if (structural) compileRules(schema, at, schemaErrors, out);
  return out;
}

const hasStatus = (v: Record<string, unknown>): boolean => isRecord(asRecord(v.subresources)?.status);

export function validateSchemaRules(versions: Record<string, unknown>[]): StatusCause[] {
  const schemas = versions.map((v) => asRecord(asRecord(v.schema)?.openAPIV3Schema));
  const first = schemas[0];
  if (first && schemas.every((s) => s !== undefined && JSON.stringify(s) === JSON.stringify(first))) return validateSchema(first, 'spec.validation', versions.some(hasStatus));
  return schemas.flatMap((s, i) => (s ? validateSchema(s, `spec.versions[${i}].schema`, hasStatus(versions[i]!)) : []));
}
