// AdmissionReview v1 as Kubernetes sends it (k8s.io/api/admission/v1) and reads the reply: the request with
// uid, kind, resource, subResource, requestKind/-Resource/-SubResource, name, namespace, operation, userInfo,
// object, oldObject, dryRun and options; the response's uid, allowed, status, patch, warnings, auditAnnotations.
import { randomUUID } from 'node:crypto';
import type { AdmissionAttributes } from '../types.ts';
import { isObj } from '../types.ts';
import { WebhookCallError } from './client.ts';

type Obj = Record<string, unknown>;

const OPTIONS_KIND = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions', CONNECT: undefined } as const;

export function admissionReview(attrs: AdmissionAttributes): { uid: string; review: Obj } {
  const uid = randomUUID();
  const r = attrs.resource;
  const obj = attrs.object ?? attrs.oldObject;
  const [group, version] = typeof obj?.apiVersion === 'string' && obj.apiVersion.includes('/') ? obj.apiVersion.split('/', 2) : ['', obj?.apiVersion ?? r.version];
  const kind = { group: typeof obj?.apiVersion === 'string' ? group : r.group, version: version ?? r.version, kind: obj?.kind ?? r.kind };
  const resource = { group: r.group, version: r.version, resource: r.plural };
  const optionsKind = OPTIONS_KIND[attrs.operation];
  const user = attrs.userInfo;
  const request: Obj = {
    uid,
    kind,
    resource,
    ...(attrs.subresource ? { subResource: attrs.subresource } : {}),
    requestKind: kind,
    requestResource: resource,
    ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
    operation: attrs.operation,
    userInfo: user
      ? { username: user.username, ...(user.uid ? { uid: user.uid } : {}), ...(user.groups.length ? { groups: [...user.groups] } : {}), ...(user.extra ? { extra: user.extra } : {}) }
      : {},
    object: attrs.operation === 'DELETE' ? null : (attrs.object ?? null),
    oldObject: attrs.operation === 'CREATE' ? null : (attrs.oldObject ?? null),
    dryRun: attrs.dryRun,
    options: optionsKind ? { kind: optionsKind, apiVersion: 'meta.k8s.io/v1', ...(attrs.dryRun ? { dryRun: ['All'] } : {}) } : null,
  };
  return { uid, review: { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request } };
}

export interface ReviewResponse {
  allowed: boolean;
  status?: Obj;
  patch?: unknown[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

const invalid = (why: string) => new WebhookCallError(`received invalid webhook response: ${why}`);

/** VerifyAdmissionResponse for v1: the kind, a response, the same uid, and a JSONPatch only where one may be. */
export function parseReviewResponse(body: unknown, uid: string, mutating: boolean): ReviewResponse {
  if (!isObj(body)) throw invalid('expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview');
  if (body.apiVersion !== 'admission.k8s.io/v1' || body.kind !== 'AdmissionReview')
    throw invalid(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(body.apiVersion ?? '')}, Kind=${String(body.kind ?? '')}`);
  const res = body.response;
  if (!isObj(res)) throw invalid('webhook response was absent');
  if (res.uid !== uid) throw invalid(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(res.uid ?? '')}`);
  const out: ReviewResponse = {
    allowed: res.allowed === true,
    warnings: Array.isArray(res.warnings) ? res.warnings.filter((w): w is string => typeof w === 'string') : [],
    auditAnnotations: isObj(res.auditAnnotations) ? (Object.fromEntries(Object.entries(res.auditAnnotations).filter(([, v]) => typeof v === 'string')) as Record<string, string>) : {},
  };
  if (isObj(res.status)) out.status = res.status;
  const hasPatch = typeof res.patch === 'string' && res.patch.length > 0;
  if (hasPatch) {
    if (!mutating) throw invalid('validating webhooks may not return patches');
    if (res.patchType !== 'JSONPatch') throw invalid(`webhook returned invalid patchType: ${JSON.stringify(res.patchType ?? '')}`);
    let patch: unknown;
    try {
      patch = JSON.parse(Buffer.from(String(res.patch), 'base64').toString('utf8'));
    } catch (e) {
      throw invalid(`patch is not valid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(patch)) throw invalid('the patch is not a JSON Patch array');
    out.patch = patch;
  } else if (res.patchType !== undefined && res.patchType !== null && res.patchType !== '' && !mutating) {
    throw invalid('validating webhooks may not return patches');
  }
  return out;
}
