// Maps method + target onto a verb of the resource table and its handler; verbs a resource does not
// support are a 405, as in Kubernetes.
import { errors, R, type Verb } from '@kemu/api';
import type { ApiContext } from '../context.ts';
import { checkLeaseFence } from '../filters/lease-fencing.ts';
import { namespaceCreateDefaults } from '../admission/namespace-lifecycle.ts';
import { componentStatuses } from './componentstatuses.ts';
import { getObject, listObjects } from './read.ts';
import { boolParam, type ApiReply, type ApiRequest } from './request.ts';
import { localSubjectAccessReview, selfSubjectAccessReview, selfSubjectReview, selfSubjectRulesReview, subjectAccessReview } from './reviews.ts';
import { bind, finalizeNamespace, scale } from './subresources.ts';
import { evict } from './eviction.ts';
import { podLog } from './pod-log.ts';
import { podStream } from './pod-exec.ts';
import { tokenRequest } from './token-request.ts';
import { tokenReview } from './token-review.ts';
import { createObject, deleteCollection, deleteObject, patchObject, updateObject } from './write.ts';

/** The metrics/log verb of a request (Kubernetes' names). */
export function requestVerb(req: Pick<ApiRequest, 'method' | 'target' | 'query' | 'contentType'>): string {
  const t = req.target;
  const m = req.method;
  if (m === 'GET' && t.name === undefined) return t.watchPath || boolParam(req.query, 'watch') ? 'WATCH' : 'LIST';
  if (m === 'PATCH' && (req.contentType ?? '').startsWith('application/apply-patch')) return 'APPLY';
  if (m === 'DELETE' && t.name === undefined) return 'DELETECOLLECTION';
  return m;
}

function notAllowed(): never {
  throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
}

function need(req: ApiRequest, verb: Verb): void {
  if (!req.target.resource.verbs.includes(verb)) notAllowed();
}

export async function handleRest(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const t = req.target;
  const m = req.method;
  await checkLeaseFence(ctx.backend, req);
  if (t.resource === R.componentstatuses) {
    if (m !== 'GET') notAllowed();
    return componentStatuses(ctx, req);
  }
  if (t.subresource !== undefined) return handleSubresource(ctx, req, t.subresource);
  if (t.name === undefined) {
    switch (m) {
      case 'GET':
        need(req, 'list');
        return listObjects(ctx, req);
      case 'POST':
        need(req, 'create');
        if (t.resource === R.bindings) return bind(ctx, req);
        if (t.resource === R.selfsubjectaccessreviews) return selfSubjectAccessReview(ctx, req);
        if (t.resource === R.selfsubjectrulesreviews) return selfSubjectRulesReview(ctx, req);
        if (t.resource === R.selfsubjectreviews) return selfSubjectReview(ctx, req);
        if (t.resource === R.subjectaccessreviews) return subjectAccessReview(ctx, req);
        if (t.resource === R.localsubjectaccessreviews) return localSubjectAccessReview(ctx, req);
        if (t.resource === R.tokenreviews) return tokenReview(ctx, req);
        if (t.resource === R.namespaces && typeof req.body === 'object' && req.body !== null) {
          namespaceCreateDefaults(req.body as Parameters<typeof namespaceCreateDefaults>[0]);
        }
        return createObject(ctx, req);
      case 'DELETE':
        need(req, 'deletecollection');
        return deleteCollection(ctx, req);
      default:
        notAllowed();
    }
  }
  switch (m) {
    case 'GET':
      need(req, 'get');
      return getObject(ctx, req);
    case 'PUT':
      need(req, 'update');
      return updateObject(ctx, req);
    case 'PATCH':
      need(req, 'patch');
      return patchObject(ctx, req);
    case 'DELETE':
      need(req, 'delete');
      return deleteObject(ctx, req);
    default:
      notAllowed();
  }
}

async function handleSubresource(ctx: ApiContext, req: ApiRequest, sub: string): Promise<ApiReply> {
  const info = req.target.resource.subresources.find((s) => s.name === sub);
  if (!info) notAllowed();
  const m = req.method;
  const verb: Verb | undefined = m === 'GET' ? 'get' : m === 'PUT' ? 'update' : m === 'PATCH' ? 'patch' : m === 'POST' ? 'create' : undefined;
  if (!verb || !info.verbs.includes(verb)) notAllowed();
  switch (sub) {
    case 'status':
      if (m === 'GET') return getObject(ctx, req);
      return m === 'PUT' ? updateObject(ctx, req, 'status') : patchObject(ctx, req, 'status');
    case 'ephemeralcontainers':
    case 'approval':
      if (m === 'GET') return getObject(ctx, req);
      return m === 'PUT' ? updateObject(ctx, req, sub) : patchObject(ctx, req, sub);
    case 'scale':
      return scale(ctx, req);
    case 'binding':
      return bind(ctx, req);
    case 'eviction':
      return evict(ctx, req);
    case 'log':
      return podLog(ctx, req);
    case 'exec':
    case 'attach':
      return podStream(ctx, req, sub);
    case 'finalize':
      return finalizeNamespace(ctx, req);
    case 'token':
      return tokenRequest(ctx, req);
    case 'portforward':
      // Upgrades are served before the REST routes (port-forward.ts); a plain request is refused as the upgrade handler does.
      throw errors.badRequest('Upgrade request required');
    default:
      notAllowed();
  }
}
