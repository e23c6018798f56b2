// The versions of a custom resource as storage views (storage-views.ts): objects are stored in the storage
// version; a CRD with several versions (or objects left in an older stored version) serves every version as a
// view of the stored objects, converted on the way out and on the way in. Conversion strategy None, as
// apiextensions-apiserver's nopConverter: only apiVersion changes. Objects read from storage get their
// version's schema defaults, as Kubernetes' storage decoder applies them, so a version whose schema has a
// `default` is a view too. A CRD with one version, no defaults and nothing else stored serves its objects as
// stored, without a view.
import { errors, qualifiedResource, type KubeObject, type ResourceInfo } from '@kemu/api';
import type { AdmissionContext } from '../admission/types.ts';
import type { StorageView } from '../storage-views.ts';
import { asArray, asRecord, asString, isRecord } from '../validation/field.ts';
import { versionSchema } from './schema-validator.ts';
import { applyDefaults } from './structural.ts';
import { customResourceVersionInfos } from './resource-info.ts';
import { compareKubeAwareVersions } from './version-priority.ts';
import { conversionWebhookOf } from './webhook-conversion.ts';
import { webhookConversion } from './webhook-views.ts';

export interface CustomServing {
  qualified: string;
  /** The entry whose keys and stored form the objects have (the raw watch cache's). */
  storage: ResourceInfo;
  /** The served versions' entries (the served table's). */
  served: ResourceInfo[];
  /** One view per served version when the resource has several versions; none otherwise. */
  views: StorageView[];
}

/** The object in another version of its group (conversion strategy None). */
export function convertNone(obj: KubeObject, group: string, version: string): KubeObject {
  const apiVersion = `${group}/${version}`;
  return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion };
}

/** Whether any node of a schema has a default (values of default, example and enum are not nodes). */
function hasDefaults(s: unknown): boolean {
  if (Array.isArray(s)) return s.some(hasDefaults);
  if (!isRecord(s)) return false;
  if (s.default !== undefined) return true;
  return Object.entries(s).some(([k, v]) => k !== 'example' && k !== 'enum' && hasDefaults(v));
}

/** Conversion to a version, then its defaults on a copy (the cached object is shared). */
function reader(group: string, version: string, schema: Record<string, unknown> | undefined): (o: KubeObject) => KubeObject {
  if (!schema || !hasDefaults(schema)) return (o) => convertNone(o, group, version);
  return (o) => {
    const out = structuredClone(convertNone(o, group, version));
    applyDefaults(out, schema);
    return out;
  };
}

/** A webhook-converted view's synchronous conversion: a path that forgot to convert asynchronously fails loudly. */
function asyncOnly(): never {
  throw errors.internal('a custom resource converted by its webhook was read or written without conversion');
}

/** listObjects resolves a Service reference of a conversion webhook. */
export function customServing(crd: KubeObject, opts: { listObjects?: AdmissionContext['listObjects'] } = {}): CustomServing | undefined {
  const all = customResourceVersionInfos(crd);
  const storage = all.find((v) => v.storage);
  if (!storage) return undefined;
  const qualified = qualifiedResource(storage.info);
  const stored = (asArray(asRecord(crd.status)?.storedVersions) ?? []).map((v) => asString(v) ?? '');
  const single = all.length === 1 && stored.every((v) => v === storage.info.version) && !hasDefaults(versionSchema(crd, storage.info.version));
  if (single) return { qualified, storage: storage.info, served: storage.served ? [storage.info] : [], views: [] };
  // The raw entry is a copy: the served storage version is a view like the others (older stored versions
  // are converted to it on read).
  const raw: ResourceInfo = { ...storage.info };
  // In Kubernetes' priority order: discovery lists them so, and the first is the preferred version.
  const served = all
    .filter((v) => v.served)
    .map((v) => v.info)
    .sort((a, b) => compareKubeAwareVersions(b.version, a.version));
  const { group } = raw;
  const hook = conversionWebhookOf(crd);
  if (hook) {
    const listObjects = opts.listObjects ? { listObjects: opts.listObjects } : {};
    const views = served.map(
      (view): StorageView => ({
        view,
        storage: raw,
        fromStorage: asyncOnly,
        toStorage: asyncOnly,
        webhook: webhookConversion({ hook, group, version: view.version, storageVersion: raw.version, schema: versionSchema(crd, view.version), ...listObjects }),
      }),
    );
    return { qualified, storage: raw, served, views };
  }
  const views = served.map(
    (view): StorageView => ({
      view,
      storage: raw,
      fromStorage: reader(group, view.version, versionSchema(crd, view.version)),
      toStorage: (o) => convertNone(o, group, raw.version),
    }),
  );
  return { qualified, storage: raw, served, views };
}
