// Server-side apply (PATCH application/apply-patch+yaml) and the managedFields bookkeeping of the other
// writes. Apply creates a missing object (201), merges into an existing one (200), and answers a field
// owned by another manager with a different value with Kubernetes' 409 unless ?force=true.
import { warningHeaders } from '../registry/warnings.ts';
import { errors, qualifiedResource, StatusError, type KubeObject, type StatusCause } from '@kemu/api';
import type { ApiContext } from '../context.ts';
import { FieldPathError } from '../managedfields/compute.ts';
import { prepareApply, recordUpdate, type FieldManagerScope, type PreparedApply } from '../managedfields/fieldmanager.ts';
import { managerOrUserAgent } from '../managedfields/manager-name.ts';
import { asObjectBody } from '../registry/object-body.ts';
import { fieldValidationOf, rejectUnknownApplyFields } from '../registry/field-validation.ts';
import type { WriteOptions } from '../registry/registry.ts';
import { boolParam, header, isDryRun, type ApiReply, type ApiRequest, asUser } from './request.ts';

function scopeOf(ctx: ApiContext, req: ApiRequest, subresource: string | undefined): FieldManagerScope {
  return { resource: req.target.resource, now: ctx.clock.now(), ...(subresource !== undefined ? { subresource } : {}) };
}

/** The managedFields hook of a create, update or non-apply patch: an Update entry for the request's manager. */
export function updateTracker(ctx: ApiContext, req: ApiRequest, subresource?: string): NonNullable<WriteOptions['managedFields']> {
  const manager = managerOrUserAgent(req.query.get('fieldManager'), header(req, 'user-agent'));
  return (next, cur) => recordUpdate(cur, next, manager, scopeOf(ctx, req, subresource));
}

/** ValidatePatchOptions' first check of a non-apply patch: force only with apply. */
export function forceCauses(req: ApiRequest): StatusCause[] {
  return req.query.has('force') ? [{ reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' }] : [];
}

function typedPatchError(manifest: KubeObject, e: FieldPathError): StatusError {
  const apiVersion = manifest.apiVersion ?? '';
  const gvk = `${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}, Kind=${manifest.kind ?? ''}`;
  return errors.badRequest(`failed to create typed patch object (${manifest.metadata.namespace ?? ''}/${manifest.metadata.name ?? ''}; ${gvk}): ${e.message}`);
}

function prepare(live: KubeObject | undefined, manifest: KubeObject, manager: string, force: boolean, scope: FieldManagerScope): PreparedApply {
  try {
    return prepareApply(live, structuredClone(manifest), manager, force, scope);
  } catch (e) {
    if (e instanceof FieldPathError) throw typedPatchError(manifest, e);
    throw e;
  }
}

export async function applyObject(ctx: ApiContext, req: ApiRequest, subresource?: string): Promise<ApiReply> {
  const t = req.target;
  const name = t.name ?? '';
  const manager = req.query.get('fieldManager') ?? '';
  const required: StatusCause[] = manager ? [] : [{ reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' }];
  fieldValidationOf(req.query, 'PatchOptions', required);
  const force = boolParam(req.query, 'force') ?? false;
  const dryRun = isDryRun(req.query);
  const manifest = asObjectBody(structuredClone(req.body), t.resource, t.namespace);
  if (manifest.metadata.name !== undefined && manifest.metadata.name !== name) {
    throw errors.badRequest(`the name of the object (${manifest.metadata.name}) does not match the name on the URL (${name})`);
  }
  manifest.metadata.name = name;
  if (manifest.metadata.managedFields !== undefined) throw errors.badRequest('metadata.managedFields must be nil');
  rejectUnknownApplyFields(manifest);
  const sub = subresource !== undefined ? { subresource } : {};
  // Apply creates a missing object (not through a subresource, which needs the object).
  if (subresource === undefined && !(await ctx.registry.getKV(t.resource, t.namespace, name))) {
    const prepared = prepare(undefined, manifest, manager, force, scopeOf(ctx, req, undefined));
    try {
      const warnings: string[] = [];
      const created = await ctx.registry.create(t.resource, prepared.object, { ...asUser(req), dryRun, managedFields: (next) => prepared.record(undefined, next), warnings });
      return { code: 201, body: created, ...warningHeaders(warnings) };
    } catch (e) {
      if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
    }
  }
  let prepared: PreparedApply | undefined;
  const warnings: string[] = [];
  const wantRV = manifest.metadata.resourceVersion;
  delete manifest.metadata.resourceVersion;
  const out = await ctx.registry.guaranteedUpdate(
    t.resource,
    t.namespace,
    name,
    (cur) => {
      // A manifest with metadata.resourceVersion is conditional on it, as any patch.
      if (wantRV && wantRV !== cur.metadata.resourceVersion) throw errors.conflict(qualifiedResource(t.resource), name);
      prepared = prepare(cur, manifest, manager, force, scopeOf(ctx, req, subresource));
      return asObjectBody(prepared.object, t.resource, t.namespace);
    },
    { ...asUser(req), dryRun, ...sub, managedFields: (next, cur) => prepared?.record(cur, next), warnings },
  );
  return { code: 200, body: out, ...warningHeaders(warnings) };
}
