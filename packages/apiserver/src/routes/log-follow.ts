// pods/log?follow=true: emulated containers write nothing, so the stream carries no bytes, but it stays
// open as kubectl logs -f expects until the container has terminated, the pod is deleted (or replaced by
// another with the same name), or the client goes away. The pod is watched through the watch cache.
import { R, type KubeObject } from '@kemu/api';
import type { ServerResponse } from 'node:http';
import type { ApiContext } from '../context.ts';
import { objectKey } from '../storage.ts';
import type { CacheWatcher } from '../watch/resource-cache.ts';

interface ContainerStatus {
  name?: string;
  state?: { terminated?: unknown };
}

/** The container has exited (or the whole pod has finished): nothing more can be logged. */
export function containerDone(pod: KubeObject, container: string): boolean {
  const status = (pod.status ?? {}) as { phase?: string; containerStatuses?: ContainerStatus[] };
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return true;
  const cs = (status.containerStatuses ?? []).find((c) => c.name === container);
  return cs?.state?.terminated !== undefined && cs.state.terminated !== null;
}

export function followPodLog(ctx: ApiContext, pod: KubeObject, container: string, res: ServerResponse): void {
  const namespace = pod.metadata.namespace;
  const name = pod.metadata.name ?? '';
  const uid = pod.metadata.uid;
  const cache = ctx.cacher.cache(R.pods);
  let done = false;
  const gone = (o: KubeObject): boolean => (uid !== undefined && o.metadata.uid !== uid) || containerDone(o, container);
  const watcher: CacheWatcher = {
    ...(namespace !== undefined ? { namespace } : {}),
    deliver(batch) {
      for (const d of batch) {
        const o = d.ev.object;
        if (o.metadata.name !== name) continue;
        if (d.type === 'DELETED' || gone(o)) return finish();
      }
    },
  };
  function finish(): void {
    if (done) return;
    done = true;
    cache.watchers.delete(watcher);
    if (!res.writableEnded) res.end();
  }
  cache.watchers.add(watcher);
  res.once('close', finish);
  // The pod may have changed between the read and the registration: the cache knows the latest state.
  const cur = cache.objects.get(objectKey(R.pods, namespace, name));
  if (!cur || gone(cur.object)) finish();
}
