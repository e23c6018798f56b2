// The review APIs, answered on create and never stored: SelfSubjectAccessReview, SubjectAccessReview and
// LocalSubjectAccessReview ask the --authorization-mode chain (ctx.authorizer); SelfSubjectRulesReview lists
// its rules; SelfSubjectReview tells the caller who it is (req.user). A context without an authorizer allows
// everything (AlwaysAllow, kube-apiserver's default), and a request without a user — only unit tests build
// one — acts as the kubeconfig admin.
import { errors, formatTime, R, type KubeObject, type ResourceInfo, type StatusCause } from '@kemu/api';
import type { UserInfo } from '../authn/user.ts';
import { alwaysAllow } from '../authz/always.ts';
import type { Authorizer, NonResourceRule, ResourceRule, RulesResult } from '../authz/types.ts';
import type { ApiContext } from '../context.ts';
import { fieldValidationOf } from '../registry/field-validation.ts';
import { asObjectBody } from '../registry/object-body.ts';
import { accessSpecCauses, accessStatus, attributesFromSpec, localSpecCauses, subjectOf } from './access-review.ts';
import { isDryRun, type ApiReply, type ApiRequest } from './request.ts';
import { namespaceRequiredOnCreate } from './write.ts';

/** Who kubeadm's admin kubeconfig is: the fallback user of requests that carry none. */
export const KEMU_USER = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] } as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function userOf(req: ApiRequest): UserInfo {
  return req.user ?? { username: KEMU_USER.username, groups: [...KEMU_USER.groups] };
}

function authorizerOf(ctx: ApiContext): Authorizer {
  return ctx.authorizer ?? alwaysAllow;
}

/**
 * Kubernetes requires a (Self)SubjectAccessReview's metadata to be empty (managedFields aside; a
 * LocalSubjectAccessReview's namespace too); kemu applies the same rule to SelfSubjectReview, which is never
 * named or stored either.
 */
const MAPS_AND_LISTS = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

function metadataCauses(obj: KubeObject, allowNamespace = false): StatusCause[] {
  const meta = obj.metadata as Record<string, unknown>;
  if (meta.managedFields !== undefined && !Array.isArray(meta.managedFields)) throw errors.badRequest('metadata.managedFields must be a list');
  // Empty maps and lists count as unset, as in Kubernetes' semantic equality.
  const isEmpty = (v: unknown) => (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
  const keys = Object.keys(meta).filter((k) => k !== 'managedFields' && !(allowNamespace && k === 'namespace') && !(MAPS_AND_LISTS.has(k) && isEmpty(meta[k])));
  if (keys.length === 0) return [];
  const detail = allowNamespace ? 'must be empty except for namespace' : 'must be empty';
  return [{ reason: 'FieldValueInvalid', field: 'metadata', message: `Invalid value: ${JSON.stringify(obj.metadata).slice(0, 200)}: ${detail}` }];
}

/** The checks every create does before decoding: dryRun and fieldValidation must be valid values. */
function checkCreateOptions(req: ApiRequest): void {
  isDryRun(req.query);
  fieldValidationOf(req.query, 'CreateOptions');
}

function echoMeta(obj: KubeObject, ctx: ApiContext): KubeObject['metadata'] {
  // The (empty) request metadata is echoed; nothing is stored, so no uid or resourceVersion.
  const meta = { ...obj.metadata };
  meta.creationTimestamp = formatTime(ctx.clock.now());
  return meta;
}

/** The spec as an object (a non-object cannot be decoded: 400), its attribute fields objects when set. */
function specOf(obj: KubeObject): Record<string, unknown> {
  const spec = obj.spec;
  if (spec !== undefined && spec !== null && !isObject(spec)) throw errors.badRequest('spec must be an object');
  const s = isObject(spec) ? spec : {};
  for (const k of ['resourceAttributes', 'nonResourceAttributes'] as const) {
    if (s[k] !== undefined && s[k] !== null && !isObject(s[k])) throw errors.badRequest('spec.resourceAttributes and spec.nonResourceAttributes must be objects');
  }
  return s;
}

/**
 * The three access reviews: decode, check (the kind's extra checks after the spec's and the metadata's, as
 * Kubernetes orders them), ask the authorizer about the subject, and echo the review with its status.
 */
async function accessReview(
  ctx: ApiContext,
  req: ApiRequest,
  r: ResourceInfo,
  review: { subject: (spec: Record<string, unknown>) => UserInfo; extraCauses?: (obj: KubeObject, spec: Record<string, unknown>) => StatusCause[] },
): Promise<ApiReply> {
  checkCreateOptions(req);
  const obj = asObjectBody(req.body, r, req.target.namespace);
  if (r.namespaced && req.target.namespace === undefined) throw namespaceRequiredOnCreate();
  const spec = specOf(obj);
  const isSelf = r === R.selfsubjectaccessreviews;
  const causes = [...accessSpecCauses(spec, !isSelf), ...metadataCauses(obj, r.namespaced), ...(review.extraCauses?.(obj, spec) ?? [])];
  if (causes.length) throw errors.invalid(r.group, r.kind, '', causes);
  const result = await authorizerOf(ctx).authorize(attributesFromSpec(review.subject(spec), spec));
  return { code: 201, body: { ...obj, metadata: echoMeta(obj, ctx), spec, status: accessStatus(result, spec) } };
}

/** POST selfsubjectaccessreviews: may the caller do this? */
export function selfSubjectAccessReview(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  return accessReview(ctx, req, R.selfsubjectaccessreviews, { subject: () => userOf(req) });
}

/** POST subjectaccessreviews: may spec.user (with spec.groups, uid, extra) do this? */
export function subjectAccessReview(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  return accessReview(ctx, req, R.subjectaccessreviews, { subject: subjectOf });
}

/**
 * POST namespaces/<ns>/localsubjectaccessreviews: a SubjectAccessReview limited to the namespace. The body's
 * namespace is the URL's (another one is a 400 before this), so the spec's must equal it (a 422).
 */
export function localSubjectAccessReview(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  return accessReview(ctx, req, R.localsubjectaccessreviews, {
    subject: subjectOf,
    extraCauses: (obj, spec) => localSpecCauses(spec, typeof obj.metadata.namespace === 'string' ? obj.metadata.namespace : ''),
  });
}

/** ResourceRule/NonResourceRule as Go serializes them: verbs always, the other lists only when non-empty. */
function resourceRuleJSON(r: ResourceRule): Record<string, string[]> {
  const out: Record<string, string[]> = { verbs: [...r.verbs] };
  if (r.apiGroups.length) out.apiGroups = [...r.apiGroups];
  if (r.resources.length) out.resources = [...r.resources];
  if (r.resourceNames.length) out.resourceNames = [...r.resourceNames];
  return out;
}

function nonResourceRuleJSON(r: NonResourceRule): Record<string, string[]> {
  const out: Record<string, string[]> = { verbs: [...r.verbs] };
  if (r.nonResourceURLs.length) out.nonResourceURLs = [...r.nonResourceURLs];
  return out;
}

function rulesStatus(r: RulesResult): Record<string, unknown> {
  const status: Record<string, unknown> = {
    resourceRules: r.resourceRules.map(resourceRuleJSON),
    nonResourceRules: r.nonResourceRules.map(nonResourceRuleJSON),
    incomplete: r.incomplete,
  };
  if (r.evaluationError) status.evaluationError = r.evaluationError;
  return status;
}

/**
 * POST selfsubjectrulesreviews: the caller's rules in spec.namespace. As in Kubernetes, the request's metadata is
 * not validated and the reply is a fresh object (empty spec), and a missing namespace is a 400, not a 422. An
 * authorizer that cannot list rules makes the answer incomplete.
 */
export async function selfSubjectRulesReview(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  checkCreateOptions(req);
  const obj = asObjectBody(req.body, R.selfsubjectrulesreviews, undefined);
  if (obj.spec !== undefined && obj.spec !== null && !isObject(obj.spec)) throw errors.badRequest('spec must be an object');
  const namespace = isObject(obj.spec) ? obj.spec.namespace : undefined;
  if (typeof namespace !== 'string' || namespace === '') throw errors.badRequest('no namespace on request');
  const authorizer = authorizerOf(ctx);
  const rules: RulesResult = authorizer.rulesFor
    ? await authorizer.rulesFor(userOf(req), namespace)
    : { resourceRules: [], nonResourceRules: [], incomplete: true };
  const body: KubeObject = {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { creationTimestamp: formatTime(ctx.clock.now()) },
    spec: {},
    status: rulesStatus(rules),
  };
  return { code: 201, body };
}

/** POST selfsubjectreviews: who the caller is (username, uid, groups, extra; empty ones left out, as Go does). */
export function selfSubjectReview(ctx: ApiContext, req: ApiRequest): ApiReply {
  checkCreateOptions(req);
  const obj = asObjectBody(req.body, R.selfsubjectreviews, undefined);
  // SelfSubjectReview has no spec: a non-object there cannot be decoded.
  if (obj.spec !== undefined && obj.spec !== null && !isObject(obj.spec)) throw errors.badRequest('spec must be an object');
  const causes = metadataCauses(obj);
  if (causes.length) throw errors.invalid('authentication.k8s.io', 'SelfSubjectReview', '', causes);
  const user = userOf(req);
  const userInfo: Record<string, unknown> = {};
  if (user.username !== '') userInfo.username = user.username;
  if (user.uid) userInfo.uid = user.uid;
  if (user.groups.length) userInfo.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) userInfo.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return { code: 201, body: { ...obj, metadata: echoMeta(obj, ctx), status: { userInfo } } };
}
