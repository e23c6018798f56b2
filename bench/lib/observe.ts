// Bench helper: timestamps what a watch shows, as the benchmarks that time a lab from the outside need it.
import type { KubeObject, ResourceInfo } from '@kemu/api';
import type { RestClient } from '@kemu/client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Calls seen(obj, at, type) for every object of `r` (in `ns`, or all) the watch shows (the list first, as
 * ADDED), re-watching from the last resourceVersion when the server ends a watch, until the signal aborts.
 * `at` is performance.now() on receipt (creationTimestamp and event times have 1 s resolution).
 */
export function observe<T extends KubeObject>(
  client: RestClient,
  r: ResourceInfo,
  signal: AbortSignal,
  seen: (obj: T, at: number, type: 'ADDED' | 'MODIFIED' | 'DELETED') => void,
  ns?: string,
): Promise<void> {
  return (async () => {
    const list = await client.list<T>(r, ns);
    for (const o of list.items) seen(o, performance.now(), 'ADDED');
    let rv = list.metadata?.resourceVersion;
    while (!signal.aborted) {
      try {
        for await (const ev of client.watch<T>(r, ns, { resourceVersion: rv, allowWatchBookmarks: true, signal })) {
          rv = ev.object.metadata.resourceVersion ?? rv;
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED') seen(ev.object, performance.now(), ev.type);
        }
      } catch (e) {
        if (signal.aborted) return;
        console.error(`bench: watch ${r.plural}: ${String(e)}; re-watching`);
        await sleep(200);
      }
    }
  })();
}
