// CRD validation of the schemas' x-kubernetes-validations: every rule (and messageExpression) must compile, as
// apiextensions validation checks when the CRD is written; and the part of the structural-schema check that
// every property and array item names its type (unless int-or-string or preserving unknown fields). Paths as Kubernetes' internal version names them: when
// every version has the same schema it is hoisted to spec.validation (`spec.validation.openAPIV3Schema`),
// otherwise each stays at `spec.versions[i].schema.openAPIV3Schema`.
import type { StatusCause } from '@kemu/api';
import { rulesOf } from '../crd/cel-rules.ts';
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

const untyped = (s: Schema): boolean => !asString(s.type) && s['x-kubernetes-int-or-string'] !== true && s['x-kubernetes-preserve-unknown-fields'] !== true;

function walk(s: Schema, path: string, out: StatusCause[]): void {
  const raw = (asArray(s['x-kubernetes-validations']) ?? []).filter(isRecord);
  rulesOf(s).forEach((r, i) => {
    const rule = raw[i];
    if (!r.compileError || !rule) return;
    if (r.rule === '') out.push(fieldErrors.required(`${path}.x-kubernetes-validations[${i}].rule`));
    else out.push(fieldErrors.invalid(`${path}.x-kubernetes-validations[${i}].rule`, goRule(rule), r.compileError));
  });
  for (const [k, p] of Object.entries(asRecord(s.properties) ?? {})) {
    if (!isRecord(p)) continue;
    if (untyped(p)) out.push(fieldErrors.required(`${path}.properties[${k}].type`, 'must not be empty for specified object fields'));
    walk(p, `${path}.properties[${k}]`, out);
  }
  const items = asRecord(s.items);
  if (items && untyped(items)) out.push(fieldErrors.required(`${path}.items.type`, 'must not be empty for specified array items'));
  if (items) walk(items, `${path}.items`, out);
  const additional = asRecord(s.additionalProperties);
  if (additional) walk(additional, `${path}.additionalProperties`, out);
}

export function validateSchemaRules(versions: Record<string, unknown>[]): StatusCause[] {
  const schemas = versions.map((v) => asRecord(asRecord(v.schema)?.openAPIV3Schema));
  const out: StatusCause[] = [];
  const first = schemas[0];
  if (first && schemas.every((s) => s !== undefined && JSON.stringify(s) === JSON.stringify(first))) walk(first, 'spec.validation.openAPIV3Schema', out);
  else schemas.forEach((s, i) => s && walk(s, `spec.versions[${i}].schema.openAPIV3Schema`, out));
  return out;
}
