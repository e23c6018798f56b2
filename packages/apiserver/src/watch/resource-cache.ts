// The watch cache of one resource: its current objects (for resourceVersion=0 lists and initial
// events) and a ring of recent events (for watches that resume from a resourceVersion).
import type { KubeObject, ResourceInfo } from '@kemu/api';
import type { ObjectFilter } from '../registry/filter.ts';
import { CacheEvent, type CacheEventType } from './event.ts';

/** One object as the cache holds it: its JSON (with resourceVersion); parsed only when someone asks. */
export class CachedObject {
  private parsed: KubeObject | undefined;
  /** Its ADDED event line, plain and chunk-framed, while some connection still holds it. */
  private added: [WeakRef<Buffer> | undefined, WeakRef<Buffer> | undefined] = [undefined, undefined];

  constructor(
    readonly key: string,
    readonly json: string,
    readonly rv: number,
    /** From the key (no parse needed to filter by namespace). */
    readonly namespace: string | undefined,
  ) {}

  /** Shared, never mutated. */
  get object(): KubeObject {
    if (!this.parsed) {
      const o = JSON.parse(this.json) as KubeObject;
      if (typeof o.metadata !== 'object' || o.metadata === null) o.metadata = {};
      this.parsed = o;
    }
    return this.parsed;
  }

  /**
   * The ADDED event line for initial events, built once and shared by every watcher that gets it at the
   * same time (weakly held: the cache does not keep a second copy of every object).
   */
  addedLine(framed: boolean): Buffer {
    const i = framed ? 1 : 0;
    const hit = this.added[i]?.deref();
    if (hit) return hit;
    const line = `{"type":"ADDED","object":${this.json}}\n`;
    const b = Buffer.from(framed ? `${Buffer.byteLength(line).toString(16)}\r\n${line}\r\n` : line);
    this.added[i] = new WeakRef(b);
    return b;
  }
}

export interface Delivery {
  ev: CacheEvent;
  type: CacheEventType;
}

export interface CacheWatcher {
  namespace?: string;
  filter?: ObjectFilter;
  /** Events in rv order for this watcher (already filtered and typed); called synchronously. */
  deliver(batch: Delivery[]): void;
  /**
   * Watchers with the same shareKey turn a batch into identical bytes (no selector, no Table): the
   * first one encodes it (encodeBatch) and every one of them sends that same buffer (deliverBytes).
   */
  shareKey?: string;
  encodeBatch?(events: CacheEvent[]): { buf: Buffer; rv: number } | null;
  deliverBytes?(buf: Buffer, rv: number): void;
  /** Ends the watch (its resource is no longer served: a custom resource whose CRD went). */
  close?(): void;
}

/** What a watcher sees of an event, given its namespace and selector. */
export function deliveryFor(w: CacheWatcher, ev: CacheEvent): CacheEventType | undefined {
  if (w.namespace !== undefined && ev.namespace !== w.namespace) return undefined;
  if (!w.filter) return ev.type;
  const cur = w.filter(ev.object);
  if (ev.type !== 'MODIFIED' || !ev.prev) return cur ? ev.type : undefined;
  const old = w.filter(ev.prev);
  if (cur && old) return 'MODIFIED';
  if (cur) return 'ADDED';
  if (old) return 'DELETED';
  return undefined;
}

/**
 * Fan-out pacing: after a delivery that cost C ms of this thread's time, the next one waits until
 * FLUSH_SPACING × C ms have passed since it ended (at most MAX_WAIT_MS). An idle or small audience (C in
 * microseconds) gets every event at once; a large one under load gets several events per socket write,
 * with the batching sized by what the writes actually cost rather than by a fixed window, so delivery
 * never takes more than about a third of the thread.
 */
const FLUSH_SPACING = 2;
const MAX_WAIT_MS = 40;
/** A large audience is never written to more often than every MIN_SPACING_MS (its clients pay per write too). */
const LARGE_AUDIENCE = 64;
const MIN_SPACING_MS = 10;

export class ResourceCache {
  readonly objects = new Map<string, CachedObject>();
  readonly watchers = new Set<CacheWatcher>();
  private ring: (CacheEvent | undefined)[];
  private head = 0; // index of the oldest event
  private size = 0;
  /** Every event with rv > startRV is in the ring. */
  startRV: number;
  /** Counts every change to objects (load or event): readers that derive state from them (RBAC's index) compare it. */
  changes = 0;

  constructor(
    readonly resource: ResourceInfo,
    readonly capacity: number,
    startRV: number,
  ) {
    this.ring = new Array<CacheEvent | undefined>(capacity);
    this.startRV = startRV;
  }

  /** Initial state from a list. */
  load(obj: CachedObject): void {
    this.changes++;
    this.objects.set(obj.key, obj);
  }

  apply(type: 'create' | 'update' | 'delete', cur: CachedObject): CacheEvent {
    const prev = this.objects.get(cur.key);
    this.changes++;
    let ev: CacheEvent;
    if (type === 'delete') {
      this.objects.delete(cur.key);
      ev = new CacheEvent('DELETED', cur, prev);
    } else {
      this.objects.set(cur.key, cur);
      ev = new CacheEvent(prev ? 'MODIFIED' : 'ADDED', cur, prev);
    }
    this.push(ev);
    return ev;
  }

  private push(ev: CacheEvent): void {
    if (this.size === this.capacity) {
      const oldest = this.ring[this.head];
      if (oldest) this.startRV = oldest.rv;
      this.ring[this.head] = undefined;
      this.head = (this.head + 1) % this.capacity;
      this.size--;
    }
    this.ring[(this.head + this.size) % this.capacity] = ev;
    this.size++;
  }

  /** Events with rv > after, oldest first; undefined when the ring no longer covers `after`. */
  since(after: number): CacheEvent[] | undefined {
    if (after < this.startRV) return undefined;
    const out: CacheEvent[] = [];
    // Binary search for the first event with rv > after.
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const ev = this.ring[(this.head + mid) % this.capacity] as CacheEvent;
      if (ev.rv <= after) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.size; i++) out.push(this.ring[(this.head + i) % this.capacity] as CacheEvent);
    return out;
  }

  /** Current objects matching namespace and filter, in key order. */
  snapshot(namespace: string | undefined, filter: ObjectFilter | undefined): CachedObject[] {
    const out: CachedObject[] = [];
    for (const o of this.objects.values()) {
      if (namespace !== undefined && o.namespace !== namespace) continue;
      if (filter && !filter(o.object)) continue;
      out.push(o);
    }
    out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return out;
  }

  private pending: CacheEvent[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  /** When the last delivery ended and what it cost (ms, performance.now clock). */
  private lastFlushEnd = 0;
  private lastFlushCost = 0;

  /** Hands events to the watchers: at once, unless the previous delivery's cost asks for spacing (see FLUSH_SPACING). */
  dispatch(events: CacheEvent[]): void {
    if (events.length === 0 || this.watchers.size === 0) return;
    for (const ev of events) this.pending.push(ev);
    if (this.flushTimer) return;
    const spacing = Math.max(FLUSH_SPACING * this.lastFlushCost, this.watchers.size >= LARGE_AUDIENCE ? MIN_SPACING_MS : 0);
    const wait = Math.min(MAX_WAIT_MS, this.lastFlushEnd + spacing - performance.now());
    if (wait <= 0) {
      this.flushPending();
      return;
    }
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flushPending();
    }, wait);
  }

  /** Events queued for coalesced delivery must reach a watcher before anything it registers after. */
  flushPending(): void {
    if (this.pending.length === 0) return;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.pending;
    this.pending = [];
    const t0 = performance.now();
    this.deliverNow(batch);
    this.lastFlushEnd = performance.now();
    this.lastFlushCost = this.lastFlushEnd - t0;
  }

  private deliverNow(events: CacheEvent[]): void {
    const shared = new Map<string, { buf: Buffer; rv: number } | null>();
    for (const w of this.watchers) {
      if (w.shareKey !== undefined && w.encodeBatch && w.deliverBytes) {
        let out = shared.get(w.shareKey);
        if (out === undefined) {
          out = w.encodeBatch(events);
          shared.set(w.shareKey, out);
        }
        if (out) w.deliverBytes(out.buf, out.rv);
        continue;
      }
      let batch: Delivery[] | undefined;
      for (const ev of events) {
        const type = deliveryFor(w, ev);
        if (type) (batch ??= []).push({ ev, type });
      }
      if (batch) w.deliver(batch);
    }
  }
}
