// Whether a CRD schema is structural, as apiextensions-apiserver's schema.ValidateStructural checks it: every
// node names its type (unless int-or-string or preserving unknown fields), the root is an object without
// additionalProperties, root metadata restricts at most name and generateName, embedded resources are objects
// with their apiVersion/kind/metadata shaped as such, and value validations (allOf, anyOf, oneOf, not) only
// restrict values: no type, default, description, nullable or x-kubernetes-* there, and nothing they name that
// the structural part does not specify (checked at the root, as Kubernetes does). Errors sorted by their text.
import type { StatusCause } from '@kemu/api';
import { asArray, asRecord, asString, fieldErrors, isRecord } from './field.ts';

type Schema = Record<string, unknown>;
type Level = 'root' | 'item' | 'field';

const props = (s: Schema): Record<string, Schema> => {
  const out: Record<string, Schema> = {};
  for (const [k, v] of Object.entries(asRecord(s.properties) ?? {})) if (isRecord(v)) out[k] = v;
  return out;
};
const typeOf = (s: Schema): string => asString(s.type) ?? '';
const flag = (s: Schema, k: string): boolean => s[k] === true;
const set = (v: unknown): boolean => v !== undefined && v !== null && v !== false && v !== '' && !(Array.isArray(v) && v.length === 0);

/** The int-or-string value validation: anyOf exactly [{type: integer}, {type: string}]. */
function isIntOrStringAnyOf(v: unknown): boolean {
  const any = asArray(v);
  return any?.length === 2 && JSON.stringify(any[0]) === '{"type":"integer"}' && JSON.stringify(any[1]) === '{"type":"string"}';
}
const intOrStringAllOf = (s: Schema): boolean => isIntOrStringAnyOf(asRecord(asArray(s.allOf)?.[0])?.anyOf);

function validateValueValidation(s: Schema, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string, out: StatusCause[]): void {
  const each = (k: 'anyOf' | 'allOf' | 'oneOf') => (asArray(s[k]) ?? []).forEach((n, i) => isRecord(n) && validateNested(n, k === 'allOf' && i === 0 && skipFirstAllOfAnyOf, `${path}.${k}[${i}]`, out));
  if (!skipAnyOf) each('anyOf');
  each('allOf');
  each('oneOf');
  if (isRecord(s.not)) validateNested(s.not, false, `${path}.not`, out);
  const pattern = asString(s.pattern);
  const bad = pattern ? regexpError(pattern) : undefined;
  if (bad) out.push(fieldErrors.invalid(`${path}.pattern`, pattern, `must be a valid regular expression, but isn't: error parsing regexp: ${bad}`));
}

/**
 * Why Go's RE2 refuses a pattern, for the common cases: lookarounds, unclosed groups and classes, a repetition of
 * nothing; other JavaScript syntax errors are reported with JavaScript's text.
 */
function regexpError(p: string): string | undefined {
  const perl = /\(\?<?[=!]/.exec(p)?.[0];
  if (perl) return `invalid or unsupported Perl syntax: \`${perl}\``;
  try {
    new RegExp(p);
    return undefined;
  } catch (e) {
    const m = (e as Error).message;
    if (m.includes('Unterminated group')) return `missing closing ): \`${p}\``;
    if (m.includes('Unterminated character class')) return `missing closing ]: \`${p.slice(p.lastIndexOf('['))}\``;
    if (m.includes('Nothing to repeat')) return `missing argument to repetition operator: \`${/[*+?]/.exec(p)?.[0] ?? ''}\``;
    return m;
  }
}

/** A schema under allOf/anyOf/oneOf/not: only value restrictions are allowed. */
function validateNested(s: Schema, skipAnyOf: boolean, path: string, out: StatusCause[]): void {
  validateValueValidation(s, skipAnyOf, false, path, out);
  if (isRecord(s.items)) validateNested(s.items, false, `${path}.items`, out);
  for (const [k, p] of Object.entries(props(s))) validateNested(p, false, `${path}.properties[${k}]`, out);
  const forbid = (k: string, detail: string) => out.push(fieldErrors.forbidden(`${path}.${k}`, detail));
  if (typeOf(s) !== '') forbid('type', 'must be empty to be structural');
  if (isRecord(s.additionalProperties) || s.additionalProperties === true) forbid('additionalProperties', 'must be undefined to be structural');
  if (s.default !== undefined && s.default !== null) forbid('default', 'must be undefined to be structural');
  if (set(s.title)) forbid('title', 'must be empty to be structural');
  if (set(s.description)) forbid('description', 'must be empty to be structural');
  if (flag(s, 'nullable')) forbid('nullable', 'must be false to be structural');
  if (isRecord(s.externalDocs)) forbid('externalDocs', 'must be undefined to be structural');
  if (flag(s, 'x-kubernetes-preserve-unknown-fields')) forbid('x-kubernetes-preserve-unknown-fields', 'must be false to be structural');
  if (flag(s, 'x-kubernetes-embedded-resource')) forbid('x-kubernetes-embedded-resource', 'must be false to be structural');
  if (flag(s, 'x-kubernetes-int-or-string')) forbid('x-kubernetes-int-or-string', 'must be false to be structural');
  if (set(s['x-kubernetes-list-map-keys'])) forbid('x-kubernetes-list-map-keys', 'must be empty to be structural');
  if (set(s['x-kubernetes-list-type'])) forbid('x-kubernetes-list-type', 'must be undefined to be structural');
  if (set(s['x-kubernetes-map-type'])) forbid('x-kubernetes-map-type', 'must be undefined to be structural');
  if (set(s['x-kubernetes-validations'])) forbid('x-kubernetes-validations', 'must be empty to be structural');
  if ('metadata' in props(s)) forbid('properties[metadata]', 'must not be specified in a nested context');
}

/** Whether a root metadata schema restricts more than name and generateName (type, default and such properties are ignored, as Kubernetes ignores them). */
function metadataRestrictsMore(s: Schema): boolean {
  const names = Object.keys(props(s));
  const onlyNames = names.length > 0 && names.length <= 2 && names.every((n) => n === 'name' || n === 'generateName');
  return Object.entries(s).some(([k, v]) => {
    if (k === 'type' || k === 'default' || (k === 'properties' && onlyNames)) return false;
    if (k === 'x-kubernetes-preserve-unknown-fields' || k === 'nullable' || k === 'exclusiveMaximum' || k === 'exclusiveMinimum' || k === 'uniqueItems') return v === true;
    return set(v) && !(isRecord(v) && Object.keys(v).length === 0);
  });
}

function validateMetadata(s: Schema, checkMetadata: boolean, level: Level, path: string, out: StatusCause[]): void {
  if (checkMetadata && typeOf(s) !== 'object') out.push(fieldErrors.invalid(`${path}.type`, typeOf(s), 'must be object'));
  if (level === 'root' && metadataRestrictsMore(s))
    out.push(fieldErrors.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
}

function validateInvariants(s: Schema, level: Level, path: string, out: StatusCause[]): void {
  const type = typeOf(s);
  const embedded = flag(s, 'x-kubernetes-embedded-resource');
  const intOrString = flag(s, 'x-kubernetes-int-or-string');
  const preserve = flag(s, 'x-kubernetes-preserve-unknown-fields');
  if (type === 'array' && !isRecord(s.items)) out.push(fieldErrors.required(`${path}.items`, 'must be specified'));
  if (isRecord(s.items)) validateInvariants(s.items, 'item', `${path}.items`, out);
  const properties = props(s);
  for (const [k, p] of Object.entries(properties)) validateInvariants(p, 'field', `${path}.properties[${k}]`, out);
  const additional = s.additionalProperties;
  const hasAdditional = additional !== undefined && additional !== null;
  if (hasAdditional) {
    if (level === 'root') out.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (isRecord(additional)) validateInvariants(additional, 'field', `${path}.additionalProperties`, out);
  }
  if (intOrString && preserve) out.push(fieldErrors.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) out.push(fieldErrors.invalid(`${path}.x-kubernetes-embedded-resource`, true, 'must be false if x-kubernetes-int-or-string is true'));
  validateValueValidation(s, isIntOrStringAnyOf(s.anyOf), intOrStringAllOf(s), path, out);

  const checkMetadata = level === 'root' || embedded;
  if (embedded && type !== 'object') {
    const detail = 'must be object if x-kubernetes-embedded-resource is true';
    out.push(type === '' ? fieldErrors.required(`${path}.type`, detail) : fieldErrors.invalid(`${path}.type`, type, detail));
  } else if (type === '' && !intOrString && !preserve) {
    const where = { root: 'at the root', item: 'for specified array items', field: 'for specified object fields' }[level];
    out.push(fieldErrors.required(`${path}.type`, `must not be empty ${where}`));
  }
  if (embedded && hasAdditional) out.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set'));
  if (level === 'root' && type !== '' && type !== 'object') out.push(fieldErrors.invalid(`${path}.type`, type, 'must be object at the root'));
  for (const k of ['kind', 'apiVersion']) {
    const p = properties[k];
    if (p && checkMetadata && typeOf(p) !== 'string') out.push(fieldErrors.invalid(`${path}.properties[${k}].type`, typeOf(p), 'must be string'));
  }
  if (properties.metadata) validateMetadata(properties.metadata, checkMetadata, level, `${path}.properties[metadata]`, out);
  if (embedded && !preserve && Object.keys(properties).length === 0)
    out.push(fieldErrors.required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
}

/** Every field or array a value validation names must be specified by the structural part too. */
function validateCompleteness(v: Schema, s: Schema | undefined, sPath: string, vPath: string, out: StatusCause[], nested: boolean): void {
  if (!s) {
    out.push(fieldErrors.required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  if (isRecord(v.not)) validateCompleteness(v.not, s, sPath, `${vPath}.not`, out, true);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) (asArray(v[k]) ?? []).forEach((n, i) => isRecord(n) && validateCompleteness(n, s, sPath, `${vPath}.${k}[${i}]`, out, true));
  if (!nested) return;
  if (isRecord(v.items)) validateCompleteness(v.items, asRecord(s.items), `${sPath}.items`, `${vPath}.items`, out, true);
  const sProps = props(s);
  for (const [k, p] of Object.entries(props(v))) {
    const sp = sProps[k];
    if (!sp) out.push(fieldErrors.required(`${sPath}.properties[${k}]`, `because it is defined in ${vPath}.properties[${k}]`));
    else validateCompleteness(p, sp, `${sPath}.properties[${k}]`, `${vPath}.properties[${k}]`, out, true);
  }
}

const errorText = (c: StatusCause): string => `${c.field ?? ''}: ${c.message ?? ''}`;

/** schema.ValidateStructural: the causes why the schema at path is not structural, sorted as Kubernetes sorts them. */
export function validateStructural(schema: Schema, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  validateInvariants(schema, 'root', path, out);
  validateCompleteness(schema, schema, path, path, out, false);
  return out.sort((a, b) => (errorText(a) < errorText(b) ? -1 : errorText(a) > errorText(b) ? 1 : 0));
}
