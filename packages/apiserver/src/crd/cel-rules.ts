// x-kubernetes-validations: CEL rules on schema nodes (apiextensions-apiserver's schema/cel validator). A rule sees
// the node it sits on as `self`; a transition rule (one naming `oldSelf`) runs only on update where the node has
// an old value (correlated by property name, map key, or the keys of an x-kubernetes-list-type=map list).
// A false rule is `<path>: Invalid value: "<type>": <message>` (`failed rule: <rule>` without a message), or the
// rule's `reason` (FieldValueForbidden, FieldValueRequired, FieldValueDuplicate), at `fieldPath` when given.
// Rules are compiled once per CRD version; each evaluation is bounded by the CEL module's cost and time limits.
import { compile, type Program } from '../cel/index.ts';
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, asRecord, asString, fieldErrors, isRecord } from '../validation/field.ts';
import { versionSchema } from './schema-validator.ts';
import type { CustomResourceValidatorFactory } from './strategy.ts';

type Schema = Record<string, unknown>;
const VARIABLES = { self: 'dyn', oldSelf: 'dyn' } as const;

export interface CompiledRule {
  rule: string;
  program?: Program;
  compileError?: string;
  messageProgram?: Program;
  message?: string;
  reason?: string;
  fieldPath?: string;
  transition: boolean;
}

const cache = new WeakMap<Schema, CompiledRule[]>();

/** The compiled rules of one schema node (compiled once per node object). */
export function rulesOf(s: Schema): CompiledRule[] {
  let out = cache.get(s);
  if (out) return out;
  out = (asArray(s['x-kubernetes-validations']) ?? []).filter(isRecord).map((r): CompiledRule => {
    const rule = asString(r.rule) ?? '';
    const c = compile(rule, { variables: VARIABLES });
    const compiled: CompiledRule = { rule, transition: /\boldSelf\b/.test(rule) };
    if (c.ok) compiled.program = c.program;
    else compiled.compileError = `compilation failed: ${c.errors.map((e) => e.message).join('; ')}`;
    const me = asString(r.messageExpression);
    if (me) {
      const m = compile(me, { variables: VARIABLES });
      if (m.ok) compiled.messageProgram = m.program;
      else compiled.compileError ??= `messageExpression compilation failed: ${m.errors.map((e) => e.message).join('; ')}`;
    }
    const message = asString(r.message);
    if (message) compiled.message = message;
    const reason = asString(r.reason);
    if (reason) compiled.reason = reason;
    const fieldPath = asString(r.fieldPath);
    if (fieldPath) compiled.fieldPath = fieldPath;
    return compiled;
  });
  cache.set(s, out);
  return out;
}

function typeName(s: Schema, v: unknown): string {
  const t = asString(s.type);
  if (t) return t;
  if (Array.isArray(v)) return 'array';
  return v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v;
}

const join = (path: string, k: string): string => (path === '' ? k : `${path}.${k}`);

function failure(r: CompiledRule, path: string, s: Schema, self: unknown, old: unknown): StatusCause {
  let message = r.message ?? `failed rule: ${r.rule}`;
  if (r.messageProgram) {
    const m = r.messageProgram.eval({ self, oldSelf: old ?? null });
    if (m.ok && typeof m.value === 'string' && m.value.trim() !== '' && !m.value.includes('\n')) message = m.value;
  }
  const at = r.fieldPath ? path + (r.fieldPath.startsWith('.') || r.fieldPath.startsWith('[') ? r.fieldPath : `.${r.fieldPath}`) : path;
  const field = at.replace(/^\./, '');
  switch (r.reason) {
    case 'FieldValueForbidden':
      return fieldErrors.forbidden(field, message);
    case 'FieldValueRequired':
      return fieldErrors.required(field, message);
    case 'FieldValueDuplicate':
      return { ...fieldErrors.duplicate(field, typeName(s, self)), message: `Duplicate value: ${JSON.stringify(typeName(s, self))}: ${message}` };
    default:
      return fieldErrors.invalid(field, typeName(s, self), message);
  }
}

function check(v: unknown, old: unknown, hasOld: boolean, s: Schema, path: string, out: StatusCause[]): void {
  if (v === undefined) return;
  for (const r of rulesOf(s)) {
    if (r.transition && !hasOld) continue;
    if (!r.program) {
      out.push(fieldErrors.invalid(path, typeName(s, v), r.compileError ?? 'compilation failed'));
      continue;
    }
    const res = r.program.eval(r.transition ? { self: v, oldSelf: old } : { self: v });
    if (!res.ok) {
      out.push(fieldErrors.invalid(path, typeName(s, v), res.costExceeded ? 'validation failed due to running out of cost budget, no further validation rules will be run' : res.error));
      if (res.costExceeded) return;
      continue;
    }
    if (res.value !== true) out.push(failure(r, path, s, v, old));
  }
  if (Array.isArray(v)) {
    const items = asRecord(s.items);
    if (!items) return;
    const keys = s['x-kubernetes-list-type'] === 'map' ? (asArray(s['x-kubernetes-list-map-keys']) ?? []).map(String) : undefined;
    const oldItems = Array.isArray(old) ? old : [];
    v.forEach((item, i) => {
      const match = keys && isRecord(item) ? oldItems.find((o) => isRecord(o) && keys.every((k) => JSON.stringify(o[k]) === JSON.stringify(item[k]))) : undefined;
      check(item, match, match !== undefined, items, `${path}[${i}]`, out);
    });
    return;
  }
  if (!isRecord(v)) return;
  const props = asRecord(s.properties);
  const additional = asRecord(s.additionalProperties);
  const oldObj = isRecord(old) ? old : undefined;
  for (const [k, x] of Object.entries(v)) {
    const ps = asRecord(props?.[k]) ?? additional;
    if (!ps) continue;
    const at = props?.[k] ? join(path, k) : `${path}[${k}]`;
    check(x, oldObj?.[k], hasOld && oldObj !== undefined && k in oldObj, ps, at, out);
  }
}

/** Whether any node of the schema has rules (a version without rules gets no validator). */
function hasRules(s: unknown): boolean {
  if (Array.isArray(s)) return s.some(hasRules);
  if (!isRecord(s)) return false;
  if (Array.isArray(s['x-kubernetes-validations']) && s['x-kubernetes-validations'].length > 0) return true;
  return Object.entries(s).some(([k, v]) => k !== 'default' && k !== 'example' && k !== 'enum' && hasRules(v));
}

export function validateRules(obj: KubeObject, old: KubeObject | undefined, schema: Schema): StatusCause[] {
  const out: StatusCause[] = [];
  check(obj, old, old !== undefined, schema, '', out);
  return out;
}

export const celRulesValidatorFactory: CustomResourceValidatorFactory = (crd, version) => {
  const schema = versionSchema(crd, version);
  if (!schema || !hasRules(schema)) return undefined;
  return (obj, old) => validateRules(obj, old, schema);
};
