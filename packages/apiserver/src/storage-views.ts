// Resources that are another resource's storage seen through a conversion, as Kubernetes serves
// events.k8s.io/v1 Events from the core/v1 Events under /registry/events, and autoscaling/v1
// HorizontalPodAutoscalers from the autoscaling/v2 ones: one set of objects, readable and writable through
// both, and a write through either is seen (list, get, watch) through both.
// Keys, the watch cache and every read and write of the registry go through this table.
import { qualifiedResource, R, type KubeObject, type ResourceInfo } from '@kemu/api';
import { coreEventToEventsV1, eventsV1ToCoreEvent } from './conversion/events.ts';
import { hpaV1ToV2, hpaV2ToV1 } from './conversion/hpa.ts';
import type { AsyncConversion } from './crd/webhook-views.ts';

export interface StorageView {
  /** The resource served. */
  view: ResourceInfo;
  /** The resource whose keys and stored form it shares. */
  storage: ResourceInfo;
  fromStorage(obj: KubeObject): KubeObject;
  toStorage(obj: KubeObject): KubeObject;
  /**
   * A custom resource converted by its webhook: fromStorage and toStorage cannot be used, the objects are
   * converted asynchronously by this (storage.ts readAs/encodeAsync), and the watch cache keeps the stored form.
   */
  webhook?: AsyncConversion;
}

const VIEWS: StorageView[] = [
  { view: R.eventsV1, storage: R.events, fromStorage: coreEventToEventsV1, toStorage: eventsV1ToCoreEvent },
  { view: R.horizontalpodautoscalersV1, storage: R.horizontalpodautoscalers, fromStorage: hpaV2ToV1, toStorage: hpaV1ToV2 },
];

// Versions count: autoscaling/v1 and v2 share a group and a plural.
const same = (a: ResourceInfo, b: ResourceInfo) => a.group === b.group && a.version === b.version && a.plural === b.plural;

/** The versions of custom resources with several (crd/versions.ts), by qualified resource. */
const custom = new Map<string, readonly StorageView[]>();

export function setCustomStorageViews(qualified: string, views: readonly StorageView[]): void {
  if (views.length === 0) custom.delete(qualified);
  else custom.set(qualified, views);
}

export function storageViewOf(r: ResourceInfo): StorageView | undefined {
  const builtIn = VIEWS.find((v) => same(v.view, r));
  if (builtIn || custom.size === 0) return builtIn;
  const views = custom.get(qualifiedResource(r));
  // By identity first; an entry from before the CRD's last change by its version (never the raw storage entry).
  return views?.find((v) => v.view === r) ?? views?.find((v) => v.view.version === r.version && v.storage !== r);
}

/** The resource whose keys hold r's objects (r itself unless it is a view). */
export function storageResourceOf(r: ResourceInfo): ResourceInfo {
  return storageViewOf(r)?.storage ?? r;
}

/** The views of a stored resource that have a watch cache of their own (fed by the stored resource's). */
export function viewsOfStorage(r: ResourceInfo): readonly StorageView[] {
  const views = custom.size === 0 ? undefined : custom.get(qualifiedResource(r));
  if (views && views[0]?.storage === r) return views[0].webhook ? [] : views;
  return VIEWS.filter((v) => same(v.storage, r));
}
