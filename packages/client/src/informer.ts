// The shared informer (client-go's shared_informer.go): one reflector feeding one indexed cache, and any
// number of handlers that see add/update/delete in the order the cache changed.
// - The cache is updated before handlers run, so a handler reading the store sees the new state.
// - A re-list is turned into adds, updates (only for changed resourceVersions) and deletes; objects that
//   vanished without a delete event are delivered as DeletedFinalStateUnknown.
// - A handler with a resync period gets onUpdate(obj, obj) for every cached object each period.
// - Handlers added after start receive a synthetic add for everything already cached.
// - hasSynced() turns true once the first list has been delivered to the cache and the handlers.
import type { KubeObject } from '@kemu/api';
import { realClock, silentLogger, type Clock, type Logger } from '@kemu/base';
import { CacheIndexer } from './indexer.ts';
import type { ListerWatcher } from './listwatch.ts';
import { Reflector, type ReflectorOptions, type ReflectorSink } from './reflector.ts';
import { metaKey, type DeletedFinalStateUnknown, type IndexFunc, type Indexer } from './store.ts';

export interface EventHandler<T> {
  onAdd?(obj: T, isInInitialList: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

export interface SharedInformerOptions extends ReflectorOptions {
  /** Resync period for handlers added without one (0 = none). */
  resyncMs?: number;
}

interface Registration<T> {
  handler: EventHandler<T>;
  resyncMs: number;
  loop: boolean;
}

export class SharedInformer<T extends KubeObject> implements ReflectorSink<T> {
  private readonly cache: CacheIndexer<T>;
  readonly store: Indexer<T>;
  private readonly handlers: Registration<T>[] = [];
  private readonly reflector: Reflector<T>;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly defaultResyncMs: number;
  private synced = false;
  private runSignal: AbortSignal | undefined;
  private syncWaiters: (() => void)[] = [];

  constructor(lw: ListerWatcher<T>, opts: SharedInformerOptions = {}) {
    this.cache = new CacheIndexer<T>();
    this.store = this.cache;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? silentLogger()).child({ informer: opts.name ?? 'informer' });
    this.defaultResyncMs = opts.resyncMs ?? 0;
    this.reflector = new Reflector<T>(lw, this, { ...opts, logger: opts.logger });
  }

  addEventHandler(h: EventHandler<T>, resyncMs?: number): void {
    const reg: Registration<T> = { handler: h, resyncMs: resyncMs ?? this.defaultResyncMs, loop: false };
    this.handlers.push(reg);
    if (this.synced) for (const obj of this.cache.list()) this.call(reg, 'onAdd', () => h.onAdd?.(obj, true));
    if (this.runSignal) this.startResync(reg, this.runSignal);
  }

  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    if (this.runSignal) throw new Error('informer has already started');
    this.cache.addIndexers(indexers);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once synced (or never, if the signal aborts first — callers race it with the signal). */
  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((r) => this.syncWaiters.push(r));
  }

  lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion();
  }

  /** Reflector counters (lists, watches, re-lists on 410, idle timeouts). */
  get stats(): Reflector<T>['stats'] {
    return this.reflector.stats;
  }

  isStarted(): boolean {
    return this.runSignal !== undefined;
  }

  /** Runs until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.runSignal) throw new Error('informer has already started');
    this.runSignal = signal;
    for (const reg of this.handlers) this.startResync(reg, signal);
    await this.reflector.run(signal);
  }

  // ReflectorSink: the reflector calls these in stream order.

  replace(items: T[], _rv: string): void {
    const initial = !this.synced;
    const seen = new Set<string>();
    for (const obj of items) {
      const key = metaKey(obj);
      seen.add(key);
      const old = this.cache.set(obj);
      if (!old) this.notify('onAdd', (h) => h.onAdd?.(obj, initial));
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.notify('onUpdate', (h) => h.onUpdate?.(old, obj));
    }
    for (const key of this.cache.keys()) {
      if (seen.has(key)) continue;
      const old = this.cache.delete(key);
      if (!old) continue;
      const tomb: DeletedFinalStateUnknown<T> = { key, obj: old, deletedFinalStateUnknown: true };
      this.notify('onDelete', (h) => h.onDelete?.(tomb));
    }
    if (initial) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  add(obj: T): void {
    this.update(obj);
  }

  update(obj: T): void {
    const old = this.cache.set(obj);
    if (old) this.notify('onUpdate', (h) => h.onUpdate?.(old, obj));
    else this.notify('onAdd', (h) => h.onAdd?.(obj, false));
  }

  delete(obj: T): void {
    this.cache.delete(metaKey(obj));
    this.notify('onDelete', (h) => h.onDelete?.(obj));
  }

  private notify(what: string, fn: (h: EventHandler<T>) => void): void {
    for (const reg of this.handlers) this.call(reg, what, () => fn(reg.handler));
  }

  /** A throwing handler is logged and never breaks the informer or other handlers. */
  private call(_reg: Registration<T>, what: string, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.log.error({ err: String(e), handler: what }, 'event handler threw');
    }
  }

  private startResync(reg: Registration<T>, signal: AbortSignal): void {
    if (reg.resyncMs <= 0 || reg.loop) return;
    reg.loop = true;
    const loop = async () => {
      for (;;) {
        await this.clock.sleep(reg.resyncMs, signal);
        if (!this.synced) continue;
        for (const obj of this.cache.list()) this.call(reg, 'onUpdate', () => reg.handler.onUpdate?.(obj, obj));
      }
    };
    loop().catch(() => undefined); // ends when the signal aborts
  }
}
