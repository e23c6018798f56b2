// Test double for SharedInformerFactory, fed by FakeApi's change feed. Cached objects are deep-frozen, so a
// controller that mutates what the cache returns fails its test; hold()/release() delay delivery to model a
// cache that lags behind the controller's own writes.
import type { KubeObject, ResourceInfo } from '@kemu/api';
import type { EventHandler } from '@kemu/client';
import type { FakeApi, FakeEvent } from './fakeapi.ts';

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

function keyOf(o: KubeObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name ?? ''}` : (o.metadata.name ?? '');
}

export class FakeInformer<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly handlers: EventHandler<T>[] = [];
  private readonly held: FakeEvent[] = [];
  private holding = false;
  synced = false;

  constructor(readonly resource: ResourceInfo) {}

  readonly store = {
    get: (key: string): T | undefined => this.items.get(key),
    list: (): T[] => [...this.items.values()],
    keys: (): string[] => [...this.items.keys()],
    byIndex: (index: string, value: string): T[] => {
      if (index === 'namespace') return [...this.items.values()].filter((o) => (o.metadata.namespace ?? '') === value);
      const fn = this.indexers.get(index);
      if (!fn) throw new Error(`fake informer has no index ${index}`);
      return [...this.items.values()].filter((o) => fn(o).includes(value));
    },
  };
  private readonly indexers = new Map<string, (o: T) => string[]>();

  addEventHandler(h: EventHandler<T>): void {
    this.handlers.push(h);
    for (const o of this.items.values()) h.onAdd?.(o, true);
  }
  addIndexers(indexers: Record<string, (o: T) => string[]>): void {
    if (this.synced) throw new Error('informer has already started');
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indexers.has(name)) throw new Error(`indexer conflict: ${name}`);
      this.indexers.set(name, fn);
    }
  }
  hasSynced(): boolean {
    return this.synced;
  }
  lastSyncResourceVersion(): string {
    return '';
  }

  seed(objs: KubeObject[]): void {
    for (const o of objs) {
      const obj = deepFreeze(structuredClone(o)) as T;
      this.items.set(keyOf(obj), obj);
      for (const h of this.handlers) h.onAdd?.(obj, true);
    }
  }

  hold(): void {
    this.holding = true;
  }
  release(): void {
    this.holding = false;
    for (const e of this.held.splice(0)) this.deliver(e);
  }

  deliver(e: FakeEvent): void {
    if (this.holding) {
      this.held.push(e);
      return;
    }
    const obj = deepFreeze(e.object) as T;
    const key = keyOf(obj);
    const old = this.items.get(key);
    if (e.type === 'DELETED') {
      this.items.delete(key);
      for (const h of this.handlers) h.onDelete?.(obj);
    } else if (old) {
      this.items.set(key, obj);
      for (const h of this.handlers) h.onUpdate?.(old, obj);
    } else {
      this.items.set(key, obj);
      for (const h of this.handlers) h.onAdd?.(obj, false);
    }
  }
}

export class FakeInformerFactory {
  private readonly informers = new Map<string, FakeInformer<KubeObject>>();
  private unsubscribe?: () => void;

  constructor(private readonly api: FakeApi) {}

  informerFor<T extends KubeObject>(r: ResourceInfo, opts?: { namespace?: string; labelSelector?: string; fieldSelector?: string }): FakeInformer<T> {
    if (opts && (opts.namespace || opts.labelSelector || opts.fieldSelector)) throw new Error('fake informers are cluster-wide only');
    const id = `${r.group}/${r.plural}`;
    let inf = this.informers.get(id);
    if (!inf) {
      inf = new FakeInformer<KubeObject>(r);
      this.informers.set(id, inf);
      // Created after start (as a real factory starts it at once): filled from the fake API now.
      if (this.unsubscribe) {
        inf.seed(this.api.all(r));
        inf.synced = true;
      }
    }
    return inf as unknown as FakeInformer<T>;
  }

  get<T extends KubeObject>(r: ResourceInfo): FakeInformer<T> {
    return this.informerFor<T>(r);
  }

  start(signal: AbortSignal): void {
    if (this.unsubscribe) return;
    for (const inf of this.informers.values()) {
      inf.seed(this.api.all(inf.resource));
      inf.synced = true;
    }
    this.unsubscribe = this.api.subscribe((e) => {
      const inf = this.informers.get(`${e.resource.group}/${e.resource.plural}`);
      inf?.deliver(e);
    });
    signal.addEventListener('abort', () => this.unsubscribe?.(), { once: true });
  }

  async waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    return !signal.aborted && [...this.informers.values()].every((i) => i.synced);
  }
}
