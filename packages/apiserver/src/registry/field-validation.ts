// fieldValidation=Strict|Warn|Ignore (metav1 CreateOptions/UpdateOptions/PatchOptions): unknown fields in a
// body are dropped; Strict refuses them with a 400 "strict decoding error", Warn (the server's default) adds a
// Warning header per field, Ignore drops them silently.
import { errors, type KubeObject, type StatusCause } from '@kemu/api';
import { fieldErrors } from '../validation/field.ts';
import { pruneUnknownFields } from './json-fields.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';
const DIRECTIVES: readonly FieldValidation[] = ['Ignore', 'Warn', 'Strict'];

/** metav1 validation.FieldManagerMaxLength. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** ValidateFieldManager: at most 128 bytes, printable characters only (Go's unicode.IsPrint). */
export function fieldManagerErrors(manager: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) out.push(fieldErrors.tooLong('fieldManager', FIELD_MANAGER_MAX_LENGTH));
  let at = 0;
  for (const c of manager) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(c)) {
      const code = (c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      out.push(fieldErrors.invalid('fieldManager', manager, `invalid character U+${code} (at position ${at})`));
    }
    at += Buffer.byteLength(c);
  }
  return out;
}

/**
 * The write options of a create, update or non-apply patch, checked as ValidateCreateOptions (and its Update and
 * Patch twins) does: fieldManager, then fieldValidation, all problems in one 422. Returns the directive.
 */
export function fieldValidationOf(query: URLSearchParams, optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', first: StatusCause[] = []): FieldValidation {
  // `first`: the patch-type checks ValidatePatchOptions makes before these (force, apply's fieldManager).
  const causes = [...first, ...fieldManagerErrors(query.get('fieldManager') ?? '')];
  const v = query.get('fieldValidation') ?? '';
  if (v !== '' && !(DIRECTIVES as readonly string[]).includes(v)) causes.push(fieldErrors.notSupported('fieldValidation', v, ['Ignore', 'Warn', 'Strict']));
  if (causes.length > 0) throw errors.invalid('meta.k8s.io', optionsKind, '', causes);
  return v === '' ? 'Warn' : (v as FieldValidation);
}

/**
 * Drops obj's unknown fields. Strict: throws a 400 whose message is `strict decoding error: unknown field "a",
 * unknown field "spec.b"`, behind `prefix` (create/update bodies name the kind as Kubernetes' decoder does).
 * Warn: returns the warnings' texts (empty when there is nothing to say).
 */
export function enforceKnownFields(obj: KubeObject, directive: FieldValidation, prefix = ''): string[] {
  const unknown = pruneUnknownFields(obj as unknown as Record<string, unknown>, obj.apiVersion ?? '', obj.kind ?? '');
  if (unknown.length === 0 || directive === 'Ignore') return [];
  const texts = unknown.map((p) => `unknown field "${p}"`);
  if (directive === 'Strict') throw errors.badRequest(`${prefix}strict decoding error: ${texts.join(', ')}`);
  return texts;
}

/**
 * Server-side apply requires known fields whatever fieldValidation says (the manifest is converted to a typed
 * object first): unknown ones are a 400 naming them as structured-merge-diff does.
 */
export function rejectUnknownApplyFields(obj: KubeObject): void {
  const apiVersion = obj.apiVersion ?? '';
  const unknown = pruneUnknownFields(obj as unknown as Record<string, unknown>, apiVersion, obj.kind ?? '');
  if (unknown.length === 0) return;
  const gvk = `${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}, Kind=${obj.kind ?? ''}`;
  const nn = `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
  const texts = unknown.map((p) => `.${p}: field not declared in schema`);
  const detail = texts.length === 1 ? (texts[0] as string) : `errors:\n  ${texts.join('\n  ')}`;
  throw errors.badRequest(`failed to create typed patch object (${nn}; ${gvk}): ${detail}`);
}

/** The "Deployment in version "v1" cannot be handled as a Deployment: " prefix of create/update decode errors. */
export function decodePrefix(obj: KubeObject): string {
  const apiVersion = obj.apiVersion ?? '';
  const version = apiVersion.split('/').pop() ?? apiVersion;
  return `${obj.kind ?? ''} in version "${version}" cannot be handled as a ${obj.kind}: `;
}
