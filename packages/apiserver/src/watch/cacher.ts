// One store watch over /registry/ feeding a ResourceCache per resource. It starts from a past revision
// when the store still has it, so the history ring already covers recent resourceVersions that clients
// got from other replicas; it tracks the global revision so watches and lists can wait for it. A view of
// another resource's storage (events.k8s.io/v1 Events) has a cache of its own, fed by the same store events
// converted, so its lists, gets and watches (and their resourceVersions) are the stored resource's. The
// versions of a custom resource converted by its webhook have no cache of their own: they read the stored one.
import { errors, qualifiedResource, R, RESOURCES, setCustomResource, StatusError, type KubeObject, type ResourceInfo } from '@kemu/api';
import { customServing } from '../crd/versions.ts';
import { setDefinition, setKnownDefinition } from '../crd/definitions.ts';
import type { Logger } from '@kemu/base';
import { CompactedError, type Backend, type Watch, type WatchEvent } from '@kemu/store';
import { rawWithResourceVersion, REGISTRY_PREFIX } from '../storage.ts';
import { setCustomStorageViews, storageResourceOf, storageViewOf, viewsOfStorage } from '../storage-views.ts';
import type { CacheEvent } from './event.ts';
import { CachedObject, ResourceCache } from './resource-cache.ts';

/**
 * The whole keyspace, not just /registry/: every store write moves the global revision, and the cache's
 * revision must follow all of them or a client's resourceVersion could look like the future.
 */
const WATCH_PREFIX = '';

export interface CacherOptions {
  backend: Backend;
  logger: Logger;
  /** Events kept per resource for resuming watches. */
  historySize?: number;
  /** How far back (in revisions) the initial history reaches, when the store still has it. */
  bootstrapHistory?: number;
  /** Called when the store watch fails and the caches are rebuilt (watchers must be closed). */
  onReset?: () => void;
}

export class Cacher {
  readonly caches = new Map<ResourceInfo, ResourceCache>();
  private byPrefix = new Map<string, ResourceInfo>();
  /** Caches of custom resources by qualified resource, created and dropped as their CRDs come and go. */
  private readonly customCaches = new Map<string, ResourceCache>();
  private readonly customByPrefix = new Map<string, ResourceInfo>();
  /** Caches of the versions of custom resources served as views of their storage, by "<qualified>/<version>". */
  private readonly customViewCaches = new Map<string, ResourceCache>();
  /** The spec each custom resource's views were filled with. */
  private readonly customSpecs = new Map<string, string>();
  /** Custom resources converted by their webhook (their watches convert through the settings they started with). */
  private readonly customWebhooks = new Set<string>();
  /** The global revision the caches reflect. */
  rv = 0;
  private waiters: { rv: number; resolve: () => void }[] = [];
  private storeWatch: Watch | undefined;
  private stopped = false;
  private ready = false;
  private readonly historySize: number;
  /** Listeners for every applied batch (metrics, bookmarks). */
  readonly onBatch = new Set<(n: number) => void>();

  constructor(private readonly opts: CacherOptions) {
    this.historySize = opts.historySize ?? 10_000;
    // A key names its storage resource; views (autoscaling/v1 hpa shares v2's prefix) are fed from it.
    for (const r of RESOURCES) if (storageResourceOf(r) === r) this.byPrefix.set(qualifiedResource(r), r);
  }

  isReady(): boolean {
    return this.ready;
  }

  cache(r: ResourceInfo): ResourceCache {
    const c = this.caches.get(r) ?? this.customCache(r);
    if (!c) throw errors.internal(`no watch cache for ${qualifiedResource(r)}`);
    return c;
  }

  private customCache(r: ResourceInfo): ResourceCache | undefined {
    const q = qualifiedResource(r);
    const view = storageViewOf(r);
    return (view && this.customViewCaches.get(`${q}/${view.view.version}`)) ?? this.customCaches.get(q);
  }

  async start(): Promise<void> {
    const { backend } = this.opts;
    const current = await backend.currentRevision();
    const compacted = await backend.compactRevision();
    let from = Math.max(compacted, current - (this.opts.bootstrapHistory ?? 5_000), 0);
    let list;
    try {
      list = await backend.list(WATCH_PREFIX, { revision: from });
    } catch (e) {
      if (!(e instanceof CompactedError)) throw e;
      list = await backend.list(WATCH_PREFIX);
    }
    from = list.revision;
    this.caches.clear();
    for (const r of RESOURCES) this.caches.set(r, new ResourceCache(r, this.historySize, from));
    for (const q of [...this.customCaches.keys()]) this.dropCustom(q);
    // Definitions first: their objects' keys may sort before them.
    const crdPrefix = `${REGISTRY_PREFIX}${qualifiedResource(R.customresourcedefinitions)}/`;
    for (const kv of list.items) if (kv.key.startsWith(crdPrefix)) this.followDefinition(kv.key, kv.value, from);
    for (const kv of list.items) {
      const r = this.resourceOf(kv.key);
      if (!r) continue;
      const obj = this.cached(r, kv);
      if (!obj) continue;
      this.cache(r).load(obj);
      for (const v of viewsOfStorage(r)) this.cache(v.view).load(this.viewed(obj, v.fromStorage));
    }
    this.rv = from;
    this.storeWatch = backend.watch(WATCH_PREFIX, from, {
      onEvents: (events) => this.applyBatch(events),
      onError: (err) => this.onStoreError(err),
    });
    this.ready = true;
    this.notifyWaiters();
  }

  stop(): void {
    this.stopped = true;
    this.storeWatch?.close();
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  /** The stored JSON with its resourceVersion spliced in (no parse); undefined for a value that is not JSON. */
  private cached(r: ResourceInfo, kv: { key: string; value: string; modRevision: number }): CachedObject | undefined {
    let json: string;
    try {
      json = rawWithResourceVersion(kv);
    } catch {
      return undefined; // not JSON: nothing a client could decode
    }
    let namespace: string | undefined;
    if (r.namespaced) {
      const rest = kv.key.slice(REGISTRY_PREFIX.length);
      const parts = rest.split('/');
      namespace = parts[1];
    }
    return new CachedObject(kv.key, json, kv.modRevision, namespace);
  }

  /** The same cached object as a view serves it. */
  private viewed(obj: CachedObject, fromStorage: (o: KubeObject) => KubeObject): CachedObject {
    return new CachedObject(obj.key, JSON.stringify(fromStorage(obj.object)), obj.rv, obj.namespace);
  }

  private resourceOf(key: string): ResourceInfo | undefined {
    if (!key.startsWith(REGISTRY_PREFIX)) return undefined;
    const rest = key.slice(REGISTRY_PREFIX.length);
    const slash = rest.indexOf('/');
    if (slash < 0) return undefined;
    const q = rest.slice(0, slash);
    return this.byPrefix.get(q) ?? this.customByPrefix.get(q);
  }

  /** Serve, re-serve or stop serving the custom resource a CRD (key, stored JSON; '' when deleted) defines. */
  private followDefinition(key: string, value: string, rv: number): void {
    const qualified = key.slice(key.lastIndexOf('/') + 1);
    let crd: KubeObject | undefined;
    let serving;
    if (value !== '') {
      try {
        crd = JSON.parse(value) as KubeObject;
        serving = customServing(crd, { listObjects: async (r, ns) => this.cache(r).snapshot(ns, undefined).map((o) => o.object) });
      } catch {
        serving = undefined;
      }
    }
    setKnownDefinition(qualified, crd);
    if (!crd || !serving || serving.qualified !== qualified) {
      this.dropCustom(qualified);
      return;
    }
    let raw = this.customCaches.get(qualified);
    if (!raw) this.customCaches.set(qualified, (raw = new ResourceCache(serving.storage, this.historySize, rv)));
    this.customByPrefix.set(qualified, serving.storage);
    // Views for the versions that gained one, filled from the stored objects; gone for those that lost it.
    // A changed spec (schema defaults) refills the views in place, keeping their watchers.
    const spec = JSON.stringify(crd.spec);
    const refill = this.customSpecs.get(qualified) !== spec;
    this.customSpecs.set(qualified, spec);
    // A changed definition ends the watches that convert through the webhook (their clients watch again with the
    // new settings), as Kubernetes ends the watches of a CRD's replaced storage.
    if (refill && this.customWebhooks.has(qualified)) for (const w of [...raw.watchers]) w.close?.();
    if (serving.views.some((v) => v.webhook)) this.customWebhooks.add(qualified);
    else this.customWebhooks.delete(qualified);
    const keep = new Set<string>();
    for (const v of serving.views) {
      // A version converted by a webhook is read from the stored form, converted per request.
      if (v.webhook) continue;
      const k = `${qualified}/${v.view.version}`;
      keep.add(k);
      let c = this.customViewCaches.get(k);
      if (c && !refill) continue;
      if (!c) this.customViewCaches.set(k, (c = new ResourceCache(v.view, this.historySize, rv)));
      c.objects.clear();
      for (const o of raw.objects.values()) c.load(this.viewed(o, v.fromStorage));
    }
    for (const [k, c] of [...this.customViewCaches]) if (k.startsWith(`${qualified}/`) && !keep.has(k)) this.dropCache(this.customViewCaches, k, c);
    setDefinition(qualified, crd);
    setCustomStorageViews(qualified, serving.views);
    setCustomResource(qualified, serving.served);
  }

  /** Forgets a custom resource's cache and ends its watches, as Kubernetes ends them when a CRD's storage goes. */
  private dropCache(caches: Map<string, ResourceCache>, key: string, cache: ResourceCache | undefined): void {
    caches.delete(key);
    for (const w of [...(cache?.watchers ?? [])]) w.close?.();
  }

  private dropCustom(qualified: string): void {
    this.dropCache(this.customCaches, qualified, this.customCaches.get(qualified));
    this.customSpecs.delete(qualified);
    this.customWebhooks.delete(qualified);
    this.customByPrefix.delete(qualified);
    for (const [k, c] of [...this.customViewCaches]) if (k.startsWith(`${qualified}/`)) this.dropCache(this.customViewCaches, k, c);
    setDefinition(qualified, undefined);
    setCustomStorageViews(qualified, []);
    setCustomResource(qualified, []);
  }

  private applyBatch(events: WatchEvent[]): void {
    if (this.stopped || events.length === 0) return;
    const touched = new Map<ResourceCache, CacheEvent[]>();
    for (const e of events) {
      if (e.revision <= this.rv) continue; // never apply twice
      this.rv = e.revision;
      const r = this.resourceOf(e.kv.key);
      if (!r) continue;
      const obj = this.cached(r, { ...e.kv, modRevision: e.revision });
      if (!obj) continue;
      const apply = (cache: ResourceCache, o: CachedObject) => {
        const ev = cache.apply(e.type, o);
        let list = touched.get(cache);
        if (!list) touched.set(cache, (list = []));
        list.push(ev);
      };
      apply(this.cache(r), obj);
      for (const v of viewsOfStorage(r)) apply(this.cache(v.view), this.viewed(obj, v.fromStorage));
      if (r === R.customresourcedefinitions) this.followDefinition(e.kv.key, e.type === 'delete' ? '' : e.kv.value, e.revision);
    }
    for (const [cache, evs] of touched) cache.dispatch(evs);
    this.notifyWaiters();
    for (const f of this.onBatch) f(events.length);
  }

  private onStoreError(err: Error): void {
    if (this.stopped) return;
    this.opts.logger.error({ err: err.message }, 'store watch failed; rebuilding the watch cache');
    this.ready = false;
    this.opts.onReset?.();
    setTimeout(() => {
      if (!this.stopped) this.start().catch((e: unknown) => this.onStoreError(e instanceof Error ? e : new Error(String(e))));
    }, 500).unref();
  }

  private notifyWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (this.ready && this.rv >= w.rv) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  /** Resolves once the cache has seen revision `rv`; 504 "Too large resource version" after timeoutMs. */
  async waitFor(rv: number, timeoutMs = 3_000): Promise<void> {
    if (this.ready && this.rv >= rv) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new StatusError('Timeout', `Too large resource version: ${rv}, current: ${this.rv}`, { retryAfterSeconds: 1 }, 504));
      }, timeoutMs);
      const waiter = {
        rv,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.waiters.push(waiter);
    });
  }
}
