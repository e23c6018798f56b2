// A watch without a cache: a client reflector (list, then watch; resume; re-list on 410) whose sink only
// dispatches. The kubelet's workers already hold each pod they run, so an informer's cache would only
// duplicate them (and hold other processes' pods too); a re-list reports what vanished through `missing`.
import type { KubeObject, ResourceInfo } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import { Reflector, listWatchFor, type ReflectorSink, type RestClient } from '@kemu/client';

export interface ThinHandlers<T> {
  upsert(obj: T): void;
  delete(obj: T): void;
  /** After a (re-)list: every object present; the handler drops what it holds that is not in `present`. */
  listed(present: Set<string>): void;
  synced?(): void;
}

export function runThinWatch<T extends KubeObject>(
  client: RestClient,
  r: ResourceInfo,
  fieldSelector: string | undefined,
  key: (obj: T) => string,
  h: ThinHandlers<T>,
  deps: { clock: Clock; logger: Logger; signal: AbortSignal },
): Promise<void> {
  let synced = false;
  const sink: ReflectorSink<T> = {
    replace(items) {
      for (const o of items) h.upsert(o);
      h.listed(new Set(items.map(key)));
      if (!synced) {
        synced = true;
        h.synced?.();
      }
    },
    add: (o) => h.upsert(o),
    update: (o) => h.upsert(o),
    delete: (o) => h.delete(o),
  };
  const reflector = new Reflector<T>(listWatchFor<T>(client, r, fieldSelector ? { fieldSelector } : {}), sink, {
    name: r.plural,
    clock: deps.clock,
    logger: deps.logger,
  });
  return reflector.run(deps.signal);
}
