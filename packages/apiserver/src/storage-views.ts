// Resources that are another resource's storage seen through a conversion, as Kubernetes serves
// events.k8s.io/v1 Events from the core/v1 Events under /registry/events: one set of objects, readable and
// writable through both groups, and a write through either is seen (list, get, watch) through both.
// Keys, the watch cache and every read and write of the registry go through this table.
import { R, type KubeObject, type ResourceInfo } from '@kemu/api';
import { coreEventToEventsV1, eventsV1ToCoreEvent } from './conversion/events.ts';

export interface StorageView {
  /** The resource served. */
  view: ResourceInfo;
  /** The resource whose keys and stored form it shares. */
  storage: ResourceInfo;
  fromStorage(obj: KubeObject): KubeObject;
  toStorage(obj: KubeObject): KubeObject;
}

const VIEWS: StorageView[] = [{ view: R.eventsV1, storage: R.events, fromStorage: coreEventToEventsV1, toStorage: eventsV1ToCoreEvent }];

const same = (a: ResourceInfo, b: ResourceInfo) => a.group === b.group && a.plural === b.plural;

export function storageViewOf(r: ResourceInfo): StorageView | undefined {
  return VIEWS.find((v) => same(v.view, r));
}

/** The resource whose keys hold r's objects (r itself unless it is a view). */
export function storageResourceOf(r: ResourceInfo): ResourceInfo {
  return storageViewOf(r)?.storage ?? r;
}

/** The views of a stored resource (the watch cache feeds them too). */
export function viewsOfStorage(r: ResourceInfo): StorageView[] {
  return VIEWS.filter((v) => same(v.storage, r));
}
