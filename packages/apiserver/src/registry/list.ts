// Consistent lists read from the store: pages of `limit` items with a continue token that pins every
// later page to the first page's revision, filtered by the selectors (pages are refilled after filtering).
import { errors, groupVersion, type KubeList, type KubeObject, type ResourceInfo } from '@kemu/api';
import { CompactedError, type Backend } from '@kemu/store';
import { decodeAs, decodeContinue, decodeObject, encodeContinue, rawAs, readAs, resourcePrefix, webhookConversionOf } from '../storage.ts';
import { mapStoreError } from '../store-errors.ts';
import type { ObjectFilter } from './filter.ts';

export interface ListRequest {
  namespace?: string;
  limit?: number;
  continueToken?: string;
  /** Exact revision (resourceVersionMatch=Exact); 0 = latest. */
  revision?: number;
  filter?: ObjectFilter;
}

/** The same list as JSON text, items spliced from the stored values (no filter: nothing to parse). */
export async function listJsonFromStore(backend: Backend, r: ResourceInfo, req: Omit<ListRequest, 'filter'>): Promise<string> {
  const raw: string[] = [];
  const list = await listFromStore(backend, r, req, raw);
  const head = JSON.stringify({ kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata }).slice(0, -1);
  return `${head},"items":[${raw.join(',')}]}`;
}

export async function listFromStore(backend: Backend, r: ResourceInfo, req: ListRequest, raw?: string[]): Promise<KubeList> {
  const prefix = resourcePrefix(r, req.namespace);
  let revision = req.revision ?? 0;
  let startAfter: string | undefined;
  if (req.continueToken) {
    const c = decodeContinue(req.continueToken, prefix);
    if (!c) throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
    revision = c.rv;
    startAfter = c.startAfter;
  }
  const limit = req.limit && req.limit > 0 ? req.limit : 0;
  // A resource converted by its webhook is filtered in its stored form, then converted in one review.
  const hook = webhookConversionOf(r) !== undefined;
  const rawOut = hook ? undefined : raw;
  let items: KubeObject[] = [];
  let more = false;
  let lastKey: string | undefined;
  let remaining: number | undefined;
  try {
    for (;;) {
      const page = await backend.list(prefix, { limit: limit ? limit - items.length : 0, startAfter, revision });
      revision = page.revision;
      for (const kv of page.items) {
        lastKey = kv.key;
        if (rawOut) {
          rawOut.push(rawAs(r, kv));
          continue;
        }
        const obj = hook ? decodeObject(kv) : decodeAs(r, kv);
        if (!req.filter || req.filter(obj)) items.push(obj);
      }
      more = page.more;
      remaining = page.remaining;
      if (!more || (limit && (rawOut ? rawOut.length : items.length) >= limit) || page.items.length === 0) break;
      startAfter = lastKey;
    }
  } catch (e) {
    if (e instanceof CompactedError && req.continueToken) {
      throw errors.gone('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
    }
    throw mapStoreError(e, r, '');
  }
  if (hook) {
    items = await readAs(r, items, true);
    if (raw) {
      for (const it of items) raw.push(JSON.stringify(it));
      items = [];
    }
  }
  const list: KubeList = { kind: r.listKind, apiVersion: groupVersion(r), metadata: { resourceVersion: String(revision) }, items };
  if (more && lastKey) {
    list.metadata.continue = encodeContinue(revision, lastKey, prefix);
    if (!req.filter && remaining !== undefined) list.metadata.remainingItemCount = remaining;
  }
  for (const it of items) {
    it.apiVersion ??= groupVersion(r);
    it.kind ??= r.kind;
  }
  return list;
}
