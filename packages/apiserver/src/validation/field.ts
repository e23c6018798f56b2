// Field errors as Kubernetes' apimachinery field package renders them: a StatusCause whose message is the
// ErrorBody ("Required value", `Invalid value: "x": detail`, ...) and whose field is the path.
import type { StatusCause } from '@kemu/api';
import { GoValue } from './goformat.ts';

export type FieldReason =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueNotFound';

/** How Go's %q / %v / %#v print a bad value in field errors. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof GoValue) return v.text;
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return `[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
  return JSON.stringify(v);
}

function cause(reason: FieldReason, field: string, message: string): StatusCause {
  return { reason, message, field };
}

function withDetail(s: string, detail: string | undefined): string {
  return detail ? `${s}: ${detail}` : s;
}

export const fieldErrors = {
  required(field: string, detail?: string): StatusCause {
    return cause('FieldValueRequired', field, withDetail('Required value', detail));
  },
  invalid(field: string, value: unknown, detail?: string): StatusCause {
    return cause('FieldValueInvalid', field, withDetail(`Invalid value: ${formatValue(value)}`, detail));
  },
  notSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
    const detail = supported.length > 0 ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : undefined;
    return cause('FieldValueNotSupported', field, withDetail(`Unsupported value: ${formatValue(value)}`, detail));
  },
  forbidden(field: string, detail?: string): StatusCause {
    return cause('FieldValueForbidden', field, withDetail('Forbidden', detail));
  },
  duplicate(field: string, value: unknown): StatusCause {
    return cause('FieldValueDuplicate', field, `Duplicate value: ${formatValue(value)}`);
  },
  tooLong(field: string, maxBytes: number): StatusCause {
    return cause('FieldValueTooLong', field, `Too long: must have at most ${maxBytes} bytes`);
  },
  tooMany(field: string, actual: number, max: number): StatusCause {
    return cause('FieldValueTooMany', field, `Too many: ${actual}: must have at most ${max} items`);
  },
  notFound(field: string, value: unknown): StatusCause {
    return cause('FieldValueNotFound', field, `Not found: ${formatValue(value)}`);
  },
  /** ValidateImmutableField: Invalid with "field is immutable". */
  immutable(field: string, value: unknown): StatusCause {
    return cause('FieldValueInvalid', field, `Invalid value: ${formatValue(value)}: field is immutable`);
  },
};

/** Field path helpers: child("spec","containers") → "spec.containers", index → "[0]", key → "[k]". */
export function child(path: string, ...names: string[]): string {
  return [path, ...names].filter((s) => s !== '').join('.');
}
export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}
export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

/** Deep structural equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => jsonEqual(ao[k], bo[k]));
}

/** Narrowing helpers for untrusted JSON. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
export function asRecord(v: unknown): Record<string, unknown> | undefined {
  return isRecord(v) ? v : undefined;
}
export function asArray(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}
export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
