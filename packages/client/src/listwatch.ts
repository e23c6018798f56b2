// ListerWatcher (client-go's listwatch.go): how a reflector lists and watches one resource, with the
// informer's fixed namespace and selectors applied to both.
import type { KubeList, KubeObject, ResourceInfo, WatchEvent } from '@kemu/api';
import type { ListOptions, RestClient, WatchOptions } from './rest.ts';

export interface Lister<T> {
  list(opts: ListOptions): Promise<KubeList<T>>;
}
export interface Watcher<T> {
  watch(opts: WatchOptions): AsyncIterable<WatchEvent<T>>;
}
export type ListerWatcher<T> = Lister<T> & Watcher<T>;

export interface ListWatchScope {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export function listWatchFor<T extends KubeObject>(client: RestClient, r: ResourceInfo, scope: ListWatchScope = {}): ListerWatcher<T> {
  const sel = { labelSelector: scope.labelSelector, fieldSelector: scope.fieldSelector };
  return {
    list: (opts) => client.list<T>(r, scope.namespace, { ...opts, ...sel }),
    watch: (opts) => client.watch<T>(r, scope.namespace, { ...opts, ...sel }),
  };
}
