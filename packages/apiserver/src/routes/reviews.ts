// SelfSubjectAccessReview, SelfSubjectRulesReview and SelfSubjectReview: answered on create, never stored.
// kemu has no authentication or authorization, so every request acts as the cluster admin: access reviews
// are always allowed, rules reviews list what the cluster-admin ClusterRole grants, and the caller is
// "kubernetes-admin" in system:masters (what kubeadm's admin kubeconfig is), which is what every kemu client
// effectively is.
import { errors, formatTime, R, type KubeObject, type StatusCause } from '@kemu/api';
import type { ApiContext } from '../context.ts';
import { fieldValidationOf } from '../registry/field-validation.ts';
import { asObjectBody } from '../registry/object-body.ts';
import { isDryRun, type ApiReply, type ApiRequest } from './request.ts';

export const KEMU_USER = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] } as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Kubernetes requires a SelfSubjectAccessReview's metadata to be empty (managedFields aside); kemu applies the
 * same rule to SelfSubjectReview, which is never named or stored either.
 */
const MAPS_AND_LISTS = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

function metadataCauses(obj: KubeObject): StatusCause[] {
  const meta = obj.metadata as Record<string, unknown>;
  if (meta.managedFields !== undefined && !Array.isArray(meta.managedFields)) throw errors.badRequest('metadata.managedFields must be a list');
  // Empty maps and lists count as unset, as in Kubernetes' semantic equality.
  const isEmpty = (v: unknown) => (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
  const keys = Object.keys(meta).filter((k) => k !== 'managedFields' && !(MAPS_AND_LISTS.has(k) && isEmpty(meta[k])));
  if (keys.length === 0) return [];
  return [{ reason: 'FieldValueInvalid', field: 'metadata', message: `Invalid value: ${JSON.stringify(obj.metadata).slice(0, 200)}: must be empty` }];
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

/** POST selfsubjectaccessreviews: exactly one of spec.resourceAttributes / nonResourceAttributes; always allowed. */
export function selfSubjectAccessReview(ctx: ApiContext, req: ApiRequest): ApiReply {
  checkCreateOptions(req);
  const obj = asObjectBody(req.body, R.selfsubjectaccessreviews, undefined);
  const spec = obj.spec;
  const causes: StatusCause[] = metadataCauses(obj);
  if (spec !== undefined && spec !== null && !isObject(spec)) throw errors.badRequest('spec must be an object');
  const s = isObject(spec) ? spec : {};
  const hasRes = s.resourceAttributes !== undefined && s.resourceAttributes !== null;
  const hasNonRes = s.nonResourceAttributes !== undefined && s.nonResourceAttributes !== null;
  if ((hasRes && !isObject(s.resourceAttributes)) || (hasNonRes && !isObject(s.nonResourceAttributes))) {
    throw errors.badRequest('spec.resourceAttributes and spec.nonResourceAttributes must be objects');
  }
  if (hasRes === hasNonRes) {
    // Kubernetes' messages (ValidateSelfSubjectAccessReviewSpec).
    causes.push(
      hasRes
        ? { reason: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', message: `Invalid value: ${JSON.stringify(s.nonResourceAttributes)}: cannot be specified in combination with resourceAttributes` }
        : { reason: 'FieldValueInvalid', field: 'spec.resourceAttributes', message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified' },
    );
  }
  if (causes.length) throw errors.invalid('authorization.k8s.io', 'SelfSubjectAccessReview', '', causes);
  const body: KubeObject = {
    ...obj,
    metadata: echoMeta(obj, ctx),
    spec: s,
    status: { allowed: true, reason: 'kemu has no authorization: every request is allowed' },
  };
  return { code: 201, body };
}

/** What RBAC resolves for system:masters (the cluster-admin ClusterRole): everything, nothing left out. */
const CLUSTER_ADMIN_RULES = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

/**
 * POST selfsubjectrulesreviews: the caller's rules in spec.namespace. As in Kubernetes, the request's metadata is
 * not validated and the reply is a fresh object (empty spec), and a missing namespace is a 400, not a 422.
 */
export function selfSubjectRulesReview(ctx: ApiContext, req: ApiRequest): ApiReply {
  checkCreateOptions(req);
  const obj = asObjectBody(req.body, R.selfsubjectrulesreviews, undefined);
  if (obj.spec !== undefined && obj.spec !== null && !isObject(obj.spec)) throw errors.badRequest('spec must be an object');
  const namespace = isObject(obj.spec) ? obj.spec.namespace : undefined;
  if (namespace === undefined || namespace === null || namespace === '') throw errors.badRequest('no namespace on request');
  const body: KubeObject = {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { creationTimestamp: formatTime(ctx.clock.now()) },
    spec: {},
    status: structuredClone(CLUSTER_ADMIN_RULES),
  };
  return { code: 201, body };
}

/** POST selfsubjectreviews: who the caller is. */
export function selfSubjectReview(ctx: ApiContext, req: ApiRequest): ApiReply {
  checkCreateOptions(req);
  const obj = asObjectBody(req.body, R.selfsubjectreviews, undefined);
  // SelfSubjectReview has no spec: a non-object there cannot be decoded.
  if (obj.spec !== undefined && obj.spec !== null && !isObject(obj.spec)) throw errors.badRequest('spec must be an object');
  const causes = metadataCauses(obj);
  if (causes.length) throw errors.invalid('authentication.k8s.io', 'SelfSubjectReview', '', causes);
  const body: KubeObject = {
    ...obj,
    metadata: echoMeta(obj, ctx),
    status: { userInfo: { username: KEMU_USER.username, groups: [...KEMU_USER.groups] } },
  };
  return { code: 201, body };
}
