// Validation of custom resources against their version's openAPIV3Schema, with the messages Kubernetes'
// kube-openapi validator gives: types and formats, enum, pattern, bounds, lengths, item counts, required,
// nullable, x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields and embedded resources
// (apiVersion, kind and metadata are the generic machinery's at the root). Registered through the
// custom-resource validator hook.
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, asRecord, fieldErrors, isRecord } from '../validation/field.ts';
import { GoValue } from '../validation/goformat.ts';
import type { CustomResourceValidatorFactory } from './strategy.ts';

type Schema = Record<string, unknown>;

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v; // string, boolean
}

const FORMATS: Record<string, (s: string) => boolean> = {
  'date-time': (s) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(s) && !Number.isNaN(Date.parse(s)),
  date: (s) => /^\d{4}-\d\d-\d\d$/.test(s) && !Number.isNaN(Date.parse(s)),
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  byte: (s) => /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0,
  ipv4: (s) => /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(s),
  email: (s) => /^[^@\s]+@[^@\s]+$/.test(s),
  hostname: (s) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i.test(s) && s.length <= 253,
};

/** Go's %v of a JSON value in "Invalid value: …". */
function shown(v: unknown): unknown {
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  return new GoValue(JSON.stringify(v));
}

function typeError(path: string, want: string, v: unknown): StatusCause {
  const got = jsonType(v);
  return fieldErrors.invalid(path, got, `${path} in body must be of type ${want}: ${JSON.stringify(got)}`);
}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

function validateValue(v: unknown, s: Schema, path: string, out: StatusCause[]): void {
  if (v === null) {
    if (s.nullable === true) return;
    if (s.type === undefined && s['x-kubernetes-int-or-string'] !== true) return;
  }
  const t = typeof s.type === 'string' ? s.type : undefined;
  if (s['x-kubernetes-int-or-string'] === true) {
    if (!(typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)))) {
      out.push(typeError(path, 'integer or string', v));
      return;
    }
  } else if (t) {
    const got = jsonType(v);
    const ok = got === t || (t === 'number' && got === 'integer');
    if (!ok) {
      out.push(typeError(path, t, v));
      return;
    }
  }
  const en = asArray(s.enum);
  if (en && !en.some((e) => JSON.stringify(e) === JSON.stringify(v)))
    out.push(fieldErrors.notSupported(path, shown(v), en.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  if (typeof v === 'string') {
    const fmt = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
    if (fmt && !fmt(v)) out.push(fieldErrors.invalid(path, v, `${path} in body must be of type ${String(s.format)}: ${JSON.stringify(v)}`));
    if (typeof s.pattern === 'string') {
      let re: RegExp | undefined;
      try {
        re = new RegExp(s.pattern, 'u');
      } catch {
        re = undefined;
      }
      if (re && !re.test(v)) out.push(fieldErrors.invalid(path, v, `${path} in body should match '${s.pattern}'`));
    }
    const len = [...v].length;
    const maxLength = num(s.maxLength);
    const minLength = num(s.minLength);
    if (maxLength !== undefined && len > maxLength) out.push(fieldErrors.tooLong(path, maxLength));
    if (minLength !== undefined && len < minLength) out.push(fieldErrors.invalid(path, v, `${path} in body should be at least ${minLength} chars long`));
  }
  if (typeof v === 'number') {
    const max = num(s.maximum);
    const min = num(s.minimum);
    if (max !== undefined && (s.exclusiveMaximum === true ? v >= max : v > max))
      out.push(fieldErrors.invalid(path, v, `${path} in body should be less than ${s.exclusiveMaximum === true ? '' : 'or equal to '}${max}`));
    if (min !== undefined && (s.exclusiveMinimum === true ? v <= min : v < min))
      out.push(fieldErrors.invalid(path, v, `${path} in body should be greater than ${s.exclusiveMinimum === true ? '' : 'or equal to '}${min}`));
    const mult = num(s.multipleOf);
    if (mult !== undefined && mult > 0 && !Number.isInteger(v / mult)) out.push(fieldErrors.invalid(path, v, `${path} in body should be a multiple of ${mult}`));
  }
  if (Array.isArray(v)) {
    const maxItems = num(s.maxItems);
    const minItems = num(s.minItems);
    if (maxItems !== undefined && v.length > maxItems) out.push(fieldErrors.tooMany(path, v.length, maxItems));
    if (minItems !== undefined && v.length < minItems) out.push(fieldErrors.invalid(path, v.length, `${path} in body should have at least ${minItems} items`));
    const items = asRecord(s.items);
    if (items) v.forEach((x, i) => validateValue(x, items, `${path}[${i}]`, out));
  }
  if (isRecord(v)) {
    const props = asRecord(s.properties) ?? {};
    for (const r of asArray(s.required) ?? []) if (typeof r === 'string' && !(r in v)) out.push(fieldErrors.required(path === '' ? r : `${path}.${r}`));
    const maxP = num(s.maxProperties);
    const minP = num(s.minProperties);
    const n = Object.keys(v).length;
    if (maxP !== undefined && n > maxP) out.push(fieldErrors.tooMany(path, n, maxP));
    if (minP !== undefined && n < minP) out.push(fieldErrors.invalid(path, n, `${path} in body should have at least ${minP} properties`));
    const additional = asRecord(s.additionalProperties);
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    for (const [k, x] of Object.entries(v)) {
      const at = path === '' ? k : `${path}.${k}`;
      // At the root and in embedded objects apiVersion, kind and metadata are checked as object metadata.
      if ((path === '' || embedded) && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const ps = asRecord(props[k]) ?? additional;
      if (ps) validateValue(x, ps, additional && !props[k] ? `${path}[${k}]` : at, out);
    }
    if (embedded) {
      if (typeof v.apiVersion !== 'string' || v.apiVersion === '') out.push(fieldErrors.required(`${path}.apiVersion`, 'must not be empty'));
      if (typeof v.kind !== 'string' || v.kind === '') out.push(fieldErrors.required(`${path}.kind`, 'must not be empty'));
    }
  }
}

/** Validates a custom resource against a schema: causes with the object's field paths. */
export function validateAgainstSchema(obj: unknown, schema: Schema): StatusCause[] {
  const out: StatusCause[] = [];
  validateValue(obj, schema, '', out);
  return out;
}

/** The openAPIV3Schema of one version of a CRD. */
export function versionSchema(crd: KubeObject, version: string): Schema | undefined {
  const v = (asArray(asRecord(crd.spec)?.versions) ?? []).filter(isRecord).find((x) => x.name === version);
  return asRecord(asRecord(v?.schema)?.openAPIV3Schema);
}

export const schemaValidatorFactory: CustomResourceValidatorFactory = (crd, version) => {
  const schema = versionSchema(crd, version);
  return schema ? (obj) => validateAgainstSchema(obj, schema) : undefined;
};
