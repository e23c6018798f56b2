// GET of one object and of collections. Lists with resourceVersion "" read the store (consistent,
// paginated); "0" or N (not older than) are served by the watch cache; resourceVersionMatch=Exact reads
// the store at that revision.
import { errors, groupVersion, type KubeList, type KubeObject, type ResourceInfo } from '@kemu/api';
import { printerFor, type ApiContext } from '../context.ts';
import { buildFilter } from '../registry/filter.ts';
import { listFromStore, listJsonFromStore } from '../registry/list.ts';
import { checkListOptions } from '../registry/list-options.ts';
import { objectKey, readAs, webhookConversionOf } from '../storage.ts';
import { parseIncludeObject, toTable, wantsTable } from '../table.ts';
import { header, intParam, type ApiReply, type ApiRequest } from './request.ts';

export function tableOr(ctx: ApiContext, req: ApiRequest, objects: KubeObject[], meta: KubeList['metadata'], plain: unknown): unknown {
  if (!wantsTable(header(req, 'accept'))) return plain;
  const include = parseIncludeObject(req.query.get('includeObject'));
  return toTable(objects, printerFor(ctx, req.target.resource), include, ctx.clock.now(), meta);
}

export async function getObject(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const t = req.target;
  const rv = req.query.get('resourceVersion');
  let obj: KubeObject;
  if (rv === '0') {
    const cached = ctx.cacher.isReady() ? ctx.cacher.cache(t.resource).objects.get(keyOf(ctx, req)) : undefined;
    obj = cached ? await fromCache(t.resource, cached.json) : await ctx.registry.get(t.resource, t.namespace, t.name ?? '');
  } else {
    obj = await ctx.registry.get(t.resource, t.namespace, t.name ?? '');
  }
  obj.apiVersion ??= groupVersion(t.resource);
  obj.kind ??= t.resource.kind;
  return { code: 200, body: tableOr(ctx, req, [obj], { resourceVersion: obj.metadata.resourceVersion ?? '' }, obj) };
}

/** A cached object as r serves it: the cache holds the stored form of a resource converted by its webhook. */
async function fromCache(r: ResourceInfo, json: string): Promise<KubeObject> {
  const obj = JSON.parse(json) as KubeObject;
  return webhookConversionOf(r) ? ((await readAs(r, [obj], false))[0] as KubeObject) : obj;
}

function keyOf(_ctx: ApiContext, req: ApiRequest): string {
  const t = req.target;
  return objectKey(t.resource, t.namespace, t.name ?? '');
}

export async function listObjects(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const t = req.target;
  const q = req.query;
  checkListOptions(q);
  const filter = buildFilter(t.resource, ctx.ext, q.get('labelSelector'), q.get('fieldSelector'));
  const rvParam = q.get('resourceVersion') ?? '';
  const match = q.get('resourceVersionMatch') ?? '';
  const limit = intParam(q, 'limit');
  const cont = q.get('continue') ?? '';
  if (limit !== undefined && limit < 0) throw errors.badRequest('limit: must be a non-negative integer');
  if (cont && rvParam !== '') throw errors.badRequest('specifying resource version is not allowed when using continue');
  const rv = rvParam === '' ? 0 : Number(rvParam);
  if (!Number.isInteger(rv) || rv < 0) throw errors.badRequest(`invalid resource version: "${rvParam}"`);

  // Consistent reads from the cache (Kubernetes' ConsistentListFromCache): an unpaginated list at the
  // store's current revision, served once the cache has caught up with it; the store if it lags.
  let fromCache = rvParam !== '' && !cont && match !== 'Exact';
  let waitRV = rv;
  if (rvParam === '' && !cont && !limit && ctx.cacher.isReady()) {
    waitRV = await ctx.backend.currentRevision();
    fromCache = ctx.cacher.rv >= waitRV || (await ctx.cacher.waitFor(waitRV, 1_000).then(() => true, () => false));
  }
  let list: KubeList;
  if (!fromCache && (rvParam === '' || cont || match === 'Exact') && !filter && !wantsTable(header(req, 'accept'))) {
    const json = await listJsonFromStore(ctx.backend, t.resource, {
      ...(t.namespace !== undefined ? { namespace: t.namespace } : {}),
      ...(limit ? { limit } : {}),
      ...(cont ? { continueToken: cont } : {}),
      ...(match === 'Exact' ? { revision: rv } : {}),
    });
    return { code: 200, body: undefined, json };
  }
  if (!fromCache) {
    list = await listFromStore(ctx.backend, t.resource, {
      ...(t.namespace !== undefined ? { namespace: t.namespace } : {}),
      ...(limit ? { limit } : {}),
      ...(cont ? { continueToken: cont } : {}),
      ...(match === 'Exact' ? { revision: rv } : {}),
      ...(filter ? { filter } : {}),
    });
  } else {
    await ctx.cacher.waitFor(waitRV);
    const cache = ctx.cacher.cache(t.resource);
    const snapshot = cache.snapshot(t.namespace, filter);
    const metadata = { resourceVersion: String(ctx.cacher.rv) };
    if (webhookConversionOf(t.resource)) {
      const items = await readAs(t.resource, snapshot.map((o) => o.object), true);
      list = { kind: t.resource.listKind, apiVersion: groupVersion(t.resource), metadata, items };
      return { code: 200, body: tableOr(ctx, req, list.items, list.metadata, list) };
    }
    if (!wantsTable(header(req, 'accept'))) {
      // The cache holds each object's JSON already: assemble the list without re-serializing.
      const head = JSON.stringify({ kind: t.resource.listKind, apiVersion: groupVersion(t.resource), metadata }).slice(0, -1);
      return { code: 200, body: undefined, json: `${head},"items":[${snapshot.map((o) => o.json).join(',')}]}` };
    }
    const items = snapshot.map((o) => o.object);
    list = { kind: t.resource.listKind, apiVersion: groupVersion(t.resource), metadata, items };
  }
  return { code: 200, body: tableOr(ctx, req, list.items, list.metadata, list) };
}
