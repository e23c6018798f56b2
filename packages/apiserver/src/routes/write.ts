// POST, PUT, PATCH (including server-side apply) and DELETE of objects and collections.
import { errors, groupVersion, qualifiedResource, RESOURCES, StatusError, type KubeObject, type ResourceInfo, type Status } from '@kemu/api';
import { APPLY_PATCH, mediaType } from '../body.ts';
import type { ApiContext } from '../context.ts';
import { deleteRequest, parseDeleteOptions } from '../registry/delete-plan.ts';
import { buildFilter } from '../registry/filter.ts';
import { listFromStore } from '../registry/list.ts';
import { asObjectBody } from '../registry/object-body.ts';
import { decodePrefix, enforceKnownFields, fieldValidationOf } from '../registry/field-validation.ts';
import { keepingWarnings, warningHeaders } from '../registry/warnings.ts';
import { applyObject, forceCauses, updateTracker } from './apply.ts';
import { tableOr } from './read.ts';
import { isDryRun, type ApiReply, type ApiRequest, asUser } from './request.ts';

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', APPLY_PATCH];
/** Kinds whose DELETE replies with the object (as Kubernetes' registries do); others reply with a Status. */
const RETURNS_DELETED_OBJECT = new Set(['pods', 'namespaces', 'services', 'nodes']);

/** Subresources whose PUT and PATCH write the stored object through the registry (with their own strategy). */
const OBJECT_SUBRESOURCES = new Set(['status', 'ephemeralcontainers', 'approval']);
const writesObject = (subresource: string | undefined): boolean => subresource !== undefined && OBJECT_SUBRESOURCES.has(subresource);

function withKind(ctx: ApiContext, req: ApiRequest, obj: KubeObject): KubeObject {
  obj.apiVersion ??= groupVersion(req.target.resource);
  obj.kind ??= req.target.resource.kind;
  return obj;
}

/** A create of a namespaced resource at its all-namespaces path. */
export function namespaceRequiredOnCreate(): StatusError {
  return errors.badRequest('the server could not find the requested resource: create of a namespaced resource needs a namespace in the URL');
}

export async function createObject(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const t = req.target;
  const obj = asObjectBody(req.body, t.resource, t.namespace);
  if (t.resource.namespaced && t.namespace === undefined) throw namespaceRequiredOnCreate();
  if (t.resource.namespaced && !obj.metadata.namespace) obj.metadata.namespace = t.namespace;
  const warnings = enforceKnownFields(obj, fieldValidationOf(req.query, 'CreateOptions'), decodePrefix(obj));
  const created = await keepingWarnings(warnings, () => ctx.registry.createWithJSON(t.resource, obj, { ...asUser(req), dryRun: isDryRun(req.query), managedFields: updateTracker(ctx, req), warnings }));
  const headers: Pick<ApiReply, 'headers'> = warningHeaders(warnings);
  // The stored JSON is the reply: no second serialization of the object.
  if (created.json !== undefined) return { code: 201, body: undefined, json: created.json, ...headers };
  return { code: 201, body: withKind(ctx, req, created.object), ...headers };
}

export async function updateObject(ctx: ApiContext, req: ApiRequest, subresource?: string): Promise<ApiReply> {
  const t = req.target;
  const name = t.name ?? '';
  const obj = asObjectBody(req.body, t.resource, t.namespace);
  // A body without a name names "" (Kubernetes' checkName), which is never the URL's.
  if (obj.metadata.name !== name) {
    throw errors.badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  }
  const warnings = enforceKnownFields(obj, fieldValidationOf(req.query, 'UpdateOptions'), decodePrefix(obj));
  const sub = writesObject(subresource) ? { subresource } : {};
  let out: KubeObject;
  try {
    out = await keepingWarnings(warnings, () => ctx.registry.update(t.resource, t.namespace, name, obj, { ...asUser(req), dryRun: isDryRun(req.query), ...sub, managedFields: updateTracker(ctx, req, subresource), warnings }));
  } catch (e) {
    // Kinds whose strategy allows create-on-update (RBAC) answer a PUT of a missing object with a create: 201.
    if (!(e instanceof StatusError && e.reason === 'NotFound' && subresource === undefined && ctx.ext.strategyFor(t.resource)?.allowCreateOnUpdate)) throw e;
    if (t.resource.namespaced && !obj.metadata.namespace) obj.metadata.namespace = t.namespace;
    const created = await keepingWarnings(warnings, () => ctx.registry.create(t.resource, obj, { ...asUser(req), dryRun: isDryRun(req.query), managedFields: updateTracker(ctx, req), warnings }));
    return { code: 201, body: withKind(ctx, req, created), ...warningHeaders(warnings) };
  }
  return { code: 200, body: withKind(ctx, req, out), ...warningHeaders(warnings) };
}

/** Custom resources have no patch strategy tags, so Kubernetes serves them no strategic merge patch. */
const CUSTOM_PATCH_TYPES = PATCH_TYPES.filter((t) => t !== 'application/strategic-merge-patch+json');
const BUILT_IN = new Set<ResourceInfo>(RESOURCES);

export function checkPatchType(contentType: string | undefined, r?: ResourceInfo): string {
  const mt = mediaType(contentType);
  const types = r && !BUILT_IN.has(r) ? CUSTOM_PATCH_TYPES : PATCH_TYPES;
  if (!types.includes(mt)) {
    throw new StatusError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${types.join(', ')}`);
  }
  return mt;
}

export async function patchObject(ctx: ApiContext, req: ApiRequest, subresource?: string): Promise<ApiReply> {
  const t = req.target;
  const name = t.name ?? '';
  const mt = checkPatchType(req.contentType, t.resource);
  if (req.body === undefined) throw errors.badRequest('the body of the request was empty');
  const dryRun = isDryRun(req.query);
  const sub = writesObject(subresource) ? { subresource } : {};
  if (mt === APPLY_PATCH) {
    const applied = await applyObject(ctx, req, subresource);
    return { ...applied, body: withKind(ctx, req, applied.body as KubeObject) };
  }
  const fieldValidation = fieldValidationOf(req.query, 'PatchOptions', forceCauses(req));
  let decodeWarnings: string[] = [];
  const admissionWarnings: string[] = [];
  const out = await keepingWarnings(admissionWarnings, () => ctx.registry.guaranteedUpdate(
    t.resource,
    t.namespace,
    name,
    (cur) => {
      const patched = ctx.ext.applyPatch(mt, cur, req.body, t.resource);
      const next = asObjectBody(patched, t.resource, t.namespace);
      // Kubernetes decodes the patched object: its unknown fields are what fieldValidation judges.
      decodeWarnings = enforceKnownFields(next, fieldValidation);
      if (next.metadata.name && next.metadata.name !== name) throw errors.badRequest(`the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`);
      // A patch that sets metadata.resourceVersion is conditional on it.
      const patchRV = (patched.metadata as { resourceVersion?: unknown }).resourceVersion;
      if (typeof patchRV === 'string' && patchRV !== '' && patchRV !== cur.metadata.resourceVersion) throw errors.conflict(qualifiedResource(t.resource), name);
      return next;
    },
    { ...asUser(req), dryRun, ...sub, managedFields: updateTracker(ctx, req, subresource), warnings: admissionWarnings },
  ));
  return { code: 200, body: withKind(ctx, req, out), ...warningHeaders([...decodeWarnings, ...admissionWarnings]) };
}

function successStatus(ctx: ApiContext, req: ApiRequest, obj: KubeObject): Status {
  const r = req.target.resource;
  const details: Status['details'] = { name: obj.metadata.name ?? '', kind: r.plural };
  if (r.group) details.group = r.group;
  if (obj.metadata.uid) details.uid = obj.metadata.uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}

export async function deleteObject(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const t = req.target;
  const opts = parseDeleteOptions(req.body, req.query);
  const dryRun = isDryRun(req.query) || (opts.dryRun ?? []).includes('All');
  const res = await ctx.registry.delete(t.resource, t.namespace, t.name ?? '', deleteRequest(t.resource, opts), { ...asUser(req), dryRun });
  const code = !res.deleted && opts.orphanDependents === false ? 202 : 200;
  const obj = withKind(ctx, req, res.object);
  if (!res.deleted || RETURNS_DELETED_OBJECT.has(t.resource.plural)) return { code, body: obj };
  return { code, body: successStatus(ctx, req, obj) };
}

export async function deleteCollection(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const t = req.target;
  const opts = parseDeleteOptions(req.body, req.query);
  const dryRun = isDryRun(req.query) || (opts.dryRun ?? []).includes('All');
  const filter = buildFilter(t.resource, ctx.ext, req.query.get('labelSelector'), req.query.get('fieldSelector'));
  const list = await listFromStore(ctx.backend, t.resource, { ...(t.namespace !== undefined ? { namespace: t.namespace } : {}), ...(filter ? { filter } : {}) });
  const items: KubeObject[] = [];
  for (const it of list.items) {
    try {
      const res = await ctx.registry.delete(t.resource, it.metadata.namespace, it.metadata.name ?? '', deleteRequest(t.resource, opts), { ...asUser(req), dryRun });
      items.push(withKind(ctx, req, res.object));
    } catch (e) {
      if (!(e instanceof StatusError && e.reason === 'NotFound')) throw e;
    }
  }
  const out = { kind: t.resource.listKind, apiVersion: groupVersion(t.resource), metadata: { resourceVersion: list.metadata.resourceVersion ?? '' }, items };
  return { code: 200, body: tableOr(ctx, req, items, out.metadata, out) };
}
