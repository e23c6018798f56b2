// ObjectMeta validation (apimachinery ValidateObjectMeta / ValidateObjectMetaUpdate): name syntax, namespace,
// labels, annotations (256 KiB total), owner references, and the fields an update may never change.
import type { ObjectMeta, StatusCause } from '@kemu/api';
import { child, fieldErrors, index, isRecord } from './field.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '@kemu/api';

export type NameValidator = (name: string) => string[];

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export interface MetaOptions {
  namespaced: boolean;
  /** Name syntax for this kind; DNS-1123 subdomain by default. */
  nameFn?: NameValidator;
  path?: string;
}

export function validateLabels(labels: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (labels === undefined || labels === null) return out;
  if (!isRecord(labels)) return [fieldErrors.invalid(path, labels, 'must be a map of string keys to string values')];
  for (const [k, v] of Object.entries(labels)) {
    for (const m of isQualifiedName(k)) out.push(fieldErrors.invalid(path, k, m));
    if (typeof v !== 'string') out.push(fieldErrors.invalid(path, v, 'label values must be strings'));
    else for (const m of isValidLabelValue(v)) out.push(fieldErrors.invalid(path, v, m));
  }
  return out;
}

export function validateAnnotations(annotations: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (annotations === undefined || annotations === null) return out;
  if (!isRecord(annotations)) return [fieldErrors.invalid(path, annotations, 'must be a map of string keys to string values')];
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase())) out.push(fieldErrors.invalid(path, k, m));
    if (typeof v !== 'string') out.push(fieldErrors.invalid(path, v, 'annotation values must be strings'));
    total += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) out.push(fieldErrors.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return out;
}

function validateOwnerReferences(refs: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (refs === undefined || refs === null) return out;
  if (!Array.isArray(refs)) return [fieldErrors.invalid(path, refs, 'must be a list')];
  const controllers: string[] = [];
  refs.forEach((r: unknown, i) => {
    const p = index(path, i);
    if (!isRecord(r)) {
      out.push(fieldErrors.invalid(p, r, 'must be an object'));
      return;
    }
    if (!r.apiVersion) out.push(fieldErrors.invalid(child(p, 'apiVersion'), r.apiVersion ?? '', 'version must not be empty'));
    if (!r.kind) out.push(fieldErrors.invalid(child(p, 'kind'), r.kind ?? '', 'kind must not be empty'));
    if (!r.name) out.push(fieldErrors.invalid(child(p, 'name'), r.name ?? '', 'name must not be empty'));
    if (!r.uid) out.push(fieldErrors.invalid(child(p, 'uid'), r.uid ?? '', 'uid must not be empty'));
    if (r.controller === true) controllers.push(`${String(r.kind)}/${String(r.name)}`);
  });
  if (controllers.length > 1)
    out.push(
      fieldErrors.invalid(
        path,
        refs,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
      ),
    );
  return out;
}

export function validateObjectMeta(meta: ObjectMeta | undefined, opts: MetaOptions): StatusCause[] {
  const path = opts.path ?? 'metadata';
  const nameFn = opts.nameFn ?? isDNS1123Subdomain;
  const m: ObjectMeta = meta ?? {};
  const out: StatusCause[] = [];
  if (m.generateName) {
    // A prefix may end in '-' (the random suffix follows).
    const prefix = m.generateName.endsWith('-') ? m.generateName.slice(0, -1) : m.generateName;
    for (const msg of nameFn(prefix)) out.push(fieldErrors.invalid(child(path, 'generateName'), m.generateName, msg));
  }
  if (!m.name) {
    if (!m.generateName) out.push(fieldErrors.required(child(path, 'name'), 'name or generateName is required'));
  } else {
    for (const msg of nameFn(m.name)) out.push(fieldErrors.invalid(child(path, 'name'), m.name, msg));
  }
  if (opts.namespaced) {
    if (!m.namespace) out.push(fieldErrors.required(child(path, 'namespace')));
    else for (const msg of isDNS1123Label(m.namespace)) out.push(fieldErrors.invalid(child(path, 'namespace'), m.namespace, msg));
  } else if (m.namespace) {
    out.push(fieldErrors.forbidden(child(path, 'namespace'), 'not allowed on this type'));
  }
  if (m.generation !== undefined && (typeof m.generation !== 'number' || m.generation < 0))
    out.push(fieldErrors.invalid(child(path, 'generation'), m.generation, 'must be greater than or equal to 0'));
  out.push(...validateLabels(m.labels, child(path, 'labels')));
  out.push(...validateAnnotations(m.annotations, child(path, 'annotations')));
  out.push(...validateOwnerReferences(m.ownerReferences, child(path, 'ownerReferences')));
  if (m.finalizers !== undefined && m.finalizers !== null) {
    if (!Array.isArray(m.finalizers)) out.push(fieldErrors.invalid(child(path, 'finalizers'), m.finalizers, 'must be a list'));
    else
      m.finalizers.forEach((f: unknown, i) => {
        const p = index(child(path, 'finalizers'), i);
        if (typeof f !== 'string') out.push(fieldErrors.invalid(p, f, 'must be a string'));
        else for (const msg of isQualifiedName(f)) out.push(fieldErrors.invalid(p, f, msg));
      });
  }
  return out;
}

/** ValidateObjectMetaUpdate: the new metadata is valid and name/namespace/uid/creationTimestamp are unchanged. */
export function validateObjectMetaUpdate(meta: ObjectMeta | undefined, old: ObjectMeta | undefined, opts: MetaOptions): StatusCause[] {
  const path = opts.path ?? 'metadata';
  const m = meta ?? {};
  const o = old ?? {};
  const out = validateObjectMeta(m, opts);
  for (const f of ['name', 'namespace', 'uid', 'creationTimestamp'] as const) {
    if (o[f] !== undefined && m[f] !== o[f]) out.push(fieldErrors.immutable(child(path, f), m[f] ?? ''));
  }
  if (o.generation !== undefined && m.generation !== undefined && m.generation < o.generation)
    out.push(fieldErrors.invalid(child(path, 'generation'), m.generation, 'must not be decremented'));
  return out;
}
