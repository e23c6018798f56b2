// How API objects map onto store keys and values: Kubernetes' /registry/<resource>/<namespace>/<name>
// layout (the qualified resource keeps groups apart), JSON values without resourceVersion (the store's
// modRevision is the resourceVersion, set on every read). A view resource (events.k8s.io/v1 Events) has the
// keys of its storage resource and is converted on the way in (encodeAs) and out (decodeAs, rawAs); a custom
// resource converted by its webhook only asynchronously (encodeAsync, decodeAsync, rawAsync, readAs).
import { qualifiedResource, type KubeObject, type ResourceInfo } from '@kemu/api';
import type { AsyncConversion } from './crd/webhook-views.ts';
import { storageResourceOf, storageViewOf } from './storage-views.ts';

export const REGISTRY_PREFIX = '/registry/';

export interface StoredKV {
  key: string;
  value: string;
  modRevision: number;
}

/** Prefix of every key of a resource, or of one namespace's keys when namespace is given. */
export function resourcePrefix(r: ResourceInfo, namespace?: string): string {
  const base = `${REGISTRY_PREFIX}${qualifiedResource(storageResourceOf(r))}/`;
  return r.namespaced && namespace ? `${base}${namespace}/` : base;
}

export function objectKey(r: ResourceInfo, namespace: string | undefined, name: string): string {
  return r.namespaced ? `${resourcePrefix(r)}${namespace ?? ''}/${name}` : `${resourcePrefix(r)}${name}`;
}

/**
 * The JSON stored for an object: apiVersion, kind and metadata first (so rawWithResourceVersion can
 * splice the revision in), resourceVersion dropped (it is the write's revision).
 */
export function encodeObject(obj: KubeObject): string {
  const { apiVersion, kind, metadata, ...rest } = obj;
  const { resourceVersion: _rv, ...meta } = metadata;
  return JSON.stringify({ apiVersion, kind, metadata: meta, ...rest });
}

/** An object's JSON with its resourceVersion, without parsing it when the layout allows. */
export function rawWithResourceVersion(kv: StoredKV): string {
  const at = kv.value.indexOf('"metadata":{');
  if (at > 0 && kv.value.lastIndexOf('{', at) === 0) {
    const open = at + '"metadata":{'.length;
    const sep = kv.value[open] === '}' ? '' : ',';
    return `${kv.value.slice(0, open)}"resourceVersion":"${kv.modRevision}"${sep}${kv.value.slice(open)}`;
  }
  return JSON.stringify(decodeObject(kv));
}

export function decodeObject(kv: StoredKV): KubeObject {
  const obj = JSON.parse(kv.value) as KubeObject;
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}

/** A continue token in Kubernetes' shape: base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"<key suffix>"}. */
export function encodeContinue(rv: number, lastKey: string, prefix: string): string {
  const start = lastKey.slice(prefix.length) + '\u0000';
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

export function decodeContinue(token: string, prefix: string): { rv: number; startAfter: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { v, rv, start } = parsed as Record<string, unknown>;
    if (v !== 'meta.k8s.io/v1' || typeof rv !== 'number' || typeof start !== 'string' || !start.endsWith('\u0000')) return undefined;
    return { rv, startAfter: prefix + start.slice(0, -1) };
  } catch {
    return undefined;
  }
}

/** The stored object as resource r serves it (converted when r is a view of another's storage). */
export function decodeAs(r: ResourceInfo, kv: StoredKV): KubeObject {
  const obj = decodeObject(kv);
  const view = storageViewOf(r);
  return view ? view.fromStorage(obj) : obj;
}

/** The JSON to store for an object of resource r (in its storage resource's form). */
export function encodeAs(r: ResourceInfo, obj: KubeObject): string {
  const view = storageViewOf(r);
  return encodeObject(view ? view.toStorage(obj) : obj);
}

/** rawWithResourceVersion as resource r serves the object. */
export function rawAs(r: ResourceInfo, kv: StoredKV): string {
  return storageViewOf(r) ? JSON.stringify(decodeAs(r, kv)) : rawWithResourceVersion(kv);
}

/** The conversion of a view converted by its CRD's webhook (crd/webhook-views.ts); undefined for any other resource. */
export function webhookConversionOf(r: ResourceInfo): AsyncConversion | undefined {
  return storageViewOf(r)?.webhook;
}

/**
 * Stored objects (decoded, never mutated) as resource r serves them: decodeAs's conversion, or the webhook's,
 * a list's items in one review.
 */
export async function readAs(r: ResourceInfo, objects: KubeObject[], list: boolean): Promise<KubeObject[]> {
  const view = storageViewOf(r);
  if (!view) return objects;
  if (view.webhook) return view.webhook.fromStorage(objects, list);
  return objects.map((o) => view.fromStorage(o));
}

/** decodeAs for every resource (a webhook converts asynchronously). */
export async function decodeAsync(r: ResourceInfo, kv: StoredKV): Promise<KubeObject> {
  const hook = webhookConversionOf(r);
  if (!hook) return decodeAs(r, kv);
  const [out] = await hook.fromStorage([decodeObject(kv)], false);
  return out as KubeObject;
}

/** encodeAs for every resource. */
export async function encodeAsync(r: ResourceInfo, obj: KubeObject): Promise<string> {
  const hook = webhookConversionOf(r);
  return hook ? encodeObject(await hook.toStorage(obj)) : encodeAs(r, obj);
}

/** rawAs for every resource. */
export async function rawAsync(r: ResourceInfo, kv: StoredKV): Promise<string> {
  return webhookConversionOf(r) ? JSON.stringify(await decodeAsync(r, kv)) : rawAs(r, kv);
}
