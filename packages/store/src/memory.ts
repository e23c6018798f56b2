// MemoryBackend: the Backend contract held in one process's memory, for unit tests of other packages.
// It keeps the same log-structured shape as the SQLite backend (every write a revision, history kept
// until compaction) so that lists at a past revision, watches from a past revision and CompactedError
// behave exactly as they do against SQLite.
import {
  CompactedError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  RevisionMismatchError,
  type Backend,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Watch,
  type WatchEvent,
  type WatchHandlers,
} from './backend.ts';
import { checkKey, compareKeys } from './keys.ts';

interface Version {
  revision: number;
  createRevision: number;
  value: string;
  deleted: boolean;
}

interface MemoryWatcher {
  prefix: string;
  handlers: WatchHandlers;
  pending: WatchEvent[];
  scheduled: boolean;
  closed: boolean;
}

export class MemoryBackend implements Backend {
  private rev = 0;
  private compacted = 0;
  /** Every write in revision order (pruned by compaction). */
  private log: WatchEvent[] = [];
  /** Per key, its versions in revision order (pruned by compaction). */
  private history = new Map<string, Version[]>();
  private watchers = new Set<MemoryWatcher>();
  private closed = false;

  async get(key: string): Promise<KeyValue | undefined> {
    this.checkOpen();
    return this.current(key);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const revision = opts.revision && opts.revision > 0 ? opts.revision : this.rev;
    if (revision > this.rev) throw new FutureRevisionError(revision, this.rev);
    if (revision < this.compacted) throw new CompactedError(revision, this.compacted);
    const keys = [...this.history.keys()]
      .filter((k) => k.startsWith(prefix) && (opts.startAfter === undefined || compareKeys(k, opts.startAfter) > 0))
      .sort(compareKeys);
    const all: KeyValue[] = [];
    for (const k of keys) {
      const kv = this.at(k, revision);
      if (kv) all.push(kv);
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : all.length;
    const items = all.slice(0, limit);
    const remaining = all.length - items.length;
    return { items, revision, more: remaining > 0, remaining };
  }

  async count(prefix: string): Promise<number> {
    this.checkOpen();
    let n = 0;
    for (const k of this.history.keys()) if (k.startsWith(prefix) && this.current(k)) n++;
    return n;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.checkOpen();
    checkKey(key);
    if (this.current(key)) throw new KeyExistsError(key);
    const revision = ++this.rev;
    const kv: KeyValue = { key, value, modRevision: revision, createRevision: revision };
    this.append(key, { revision, createRevision: revision, value, deleted: false }, { type: 'create', kv, revision });
    return { ...kv };
  }

  async update(key: string, value: string, expectedRevision?: number): Promise<KeyValue> {
    const prev = this.existing(key, expectedRevision);
    const revision = ++this.rev;
    const kv: KeyValue = { key, value, modRevision: revision, createRevision: prev.createRevision };
    this.append(
      key,
      { revision, createRevision: prev.createRevision, value, deleted: false },
      { type: 'update', kv, prevKv: prev, revision },
    );
    return { ...kv };
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    const prev = this.existing(key, expectedRevision);
    const revision = ++this.rev;
    const kv: KeyValue = { key, value: prev.value, modRevision: revision, createRevision: prev.createRevision };
    this.append(
      key,
      { revision, createRevision: prev.createRevision, value: prev.value, deleted: true },
      { type: 'delete', kv, prevKv: prev, revision },
    );
    return { ...kv };
  }

  async currentRevision(): Promise<number> {
    return this.rev;
  }

  async compactRevision(): Promise<number> {
    return this.compacted;
  }

  watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Watch {
    const w: MemoryWatcher = { prefix, handlers, pending: [], scheduled: false, closed: false };
    const close = (): void => {
      w.closed = true;
      this.watchers.delete(w);
    };
    if (this.closed) {
      queueMicrotask(() => handlers.onError(new Error('store is closed')));
      return { close };
    }
    if (fromRevision < this.compacted) {
      const err = new CompactedError(fromRevision, this.compacted);
      queueMicrotask(() => {
        if (!w.closed) handlers.onError(err);
      });
      return { close };
    }
    // Replay what the log holds after fromRevision, then stay subscribed: both happen in this
    // synchronous call, so no write can fall between them.
    for (const ev of this.log) {
      if (ev.revision > fromRevision && ev.kv.key.startsWith(prefix)) w.pending.push(ev);
    }
    this.watchers.add(w);
    this.schedule(w);
    return { close };
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    const target = Math.min(revision, this.rev);
    if (target <= this.compacted) return;
    this.compacted = target;
    this.log = this.log.filter((ev) => ev.revision > target);
    for (const [key, versions] of this.history) {
      // Keep the newest version at or below target (the state at target) unless it is a tombstone,
      // and everything after target.
      let keepFrom = 0;
      for (let i = 0; i < versions.length; i++) {
        if ((versions[i] as Version).revision <= target) keepFrom = i;
      }
      let kept = versions.slice(keepFrom);
      const first = kept[0];
      if (first && first.revision <= target && first.deleted) kept = kept.slice(1);
      if (kept.length === 0) this.history.delete(key);
      else this.history.set(key, kept);
    }
  }

  async healthy(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.watchers) w.closed = true;
    this.watchers.clear();
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  /** The live value an update or delete acts on, after its preconditions (exists; revision if given). */
  private existing(key: string, expectedRevision: number | undefined): KeyValue {
    this.checkOpen();
    checkKey(key);
    const prev = this.current(key);
    if (!prev) throw new KeyNotFoundError(key);
    if (expectedRevision && expectedRevision !== prev.modRevision) {
      throw new RevisionMismatchError(key, expectedRevision, prev);
    }
    return prev;
  }

  private current(key: string): KeyValue | undefined {
    return this.at(key, this.rev);
  }

  private at(key: string, revision: number): KeyValue | undefined {
    const versions = this.history.get(key);
    if (!versions) return undefined;
    for (let i = versions.length - 1; i >= 0; i--) {
      const v = versions[i] as Version;
      if (v.revision <= revision) {
        if (v.deleted) return undefined;
        return { key, value: v.value, modRevision: v.revision, createRevision: v.createRevision };
      }
    }
    return undefined;
  }

  private append(key: string, version: Version, event: WatchEvent): void {
    let versions = this.history.get(key);
    if (!versions) {
      versions = [];
      this.history.set(key, versions);
    }
    versions.push(version);
    this.log.push(event);
    for (const w of this.watchers) {
      if (key.startsWith(w.prefix)) {
        w.pending.push(event);
        this.schedule(w);
      }
    }
  }

  /** Deliver a watcher's pending events asynchronously (as a real store would), in one batch. */
  private schedule(w: MemoryWatcher): void {
    if (w.scheduled || w.pending.length === 0) return;
    w.scheduled = true;
    queueMicrotask(() => {
      w.scheduled = false;
      if (w.closed || w.pending.length === 0) return;
      const events = w.pending.map(cloneEvent);
      w.pending = [];
      try {
        w.handlers.onEvents(events);
      } catch {
        // A handler's failure is the caller's problem; it must not break delivery to others.
      }
    });
  }
}

function cloneEvent(ev: WatchEvent): WatchEvent {
  const out: WatchEvent = { type: ev.type, kv: { ...ev.kv }, revision: ev.revision };
  if (ev.prevKv) out.prevKv = { ...ev.prevKv };
  return out;
}
