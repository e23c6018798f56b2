// The Node authorizer's graph backed by the apiserver's watch cache: the pods' ResourceCache holds every
// pod (its `objects`) and a ring of recent events (`since(rv)`), so the graph catches up by reading the
// events after the revision it last saw, and rebuilds from `objects` when the ring no longer reaches back
// that far or the Cacher was rebuilt (a new ResourceCache). Nothing is added to the write path.
import { R, type KubeObject } from '@kemu/api';
import type { Cacher } from '../../watch/cacher.ts';
import type { ResourceCache } from '../../watch/resource-cache.ts';
import type { PodEvent } from './graph-populator.ts';
import { SyncedNodeGraph, type FeedPosition, type PodFeed } from './pod-feed.ts';

export function cacherPodFeed(cacher: Cacher): PodFeed {
  const pods = (): ResourceCache => cacher.cache(R.pods);
  return {
    ready: () => cacher.isReady(),
    // The cache's revision covers every pod event applied so far (the Cacher applies a batch synchronously).
    position: () => ({ epoch: pods(), rv: cacher.rv }),
    list: () => {
      const cache = pods();
      const all: Iterable<KubeObject> = { *[Symbol.iterator]() { for (const o of cache.objects.values()) yield o.object; } };
      return { pods: all, position: { epoch: cache, rv: cacher.rv } };
    },
    changesSince: (from: FeedPosition) => {
      const cache = pods();
      if (from.epoch !== cache) return undefined;
      const evs = cache.since(from.rv);
      if (!evs) return undefined;
      return evs.map((ev): PodEvent => {
        if (ev.type !== 'DELETED') return { type: 'upsert', pod: ev.object };
        // A deletion is known by its key (/registry/pods/<namespace>/<name>); its value is not needed.
        return { type: 'delete', namespace: ev.namespace ?? '', name: ev.key.slice(ev.key.lastIndexOf('/') + 1) };
      });
    },
  };
}

/**
 * The live graph server.ts hands to nodeAuthorizer(): made once, after the Cacher is created. It syncs
 * itself before each decision that needs it; with `keepUpMs` it also syncs in the background, so it is
 * built before the first kubelet asks and never has to be rebuilt inline (stop with `stopKeepUp()`).
 */
export function nodeGraphFromCacher(cacher: Cacher, opts: { keepUpMs?: number } = {}): SyncedNodeGraph {
  const graph = new SyncedNodeGraph(cacherPodFeed(cacher));
  if (opts.keepUpMs !== undefined) graph.keepUp(opts.keepUpMs);
  return graph;
}
