// One client's watch: initial events or history replay, then live events from the cache, bookmarks,
// timeoutSeconds, and a bounded output buffer (a watcher that cannot keep up is cut off and its
// connection dropped, so it never slows the others nor holds memory; its client resumes from its last
// resourceVersion).
import { groupVersion, toStatus, type KubeObject, type ResourceInfo, type StatusError } from '@kemu/api';
import type { ObjectFilter } from '../registry/filter.ts';
import type { TablePrinter } from '../strategy/types.ts';
import { rowFor, type IncludeObject } from '../table.ts';
import { lineFor, type CacheEvent, type CacheEventType } from './event.ts';
import { deliveryFor, type CachedObject, type CacheWatcher, type Delivery, type ResourceCache } from './resource-cache.ts';

export interface WatchSink {
  /** The sink writes HTTP chunks itself: buffers must come chunk-framed (see frame()). */
  framed?: boolean;
  /**
   * Several buffers are written as they are, without being joined: event lines are shared by every
   * watcher, so what a slow watcher holds unsent costs references, not copies.
   */
  write(buf: Buffer | Buffer[]): void;
  /** Bytes written but not yet flushed to the client. */
  buffered(): number;
  /** Ends the stream (the client sees a clean end); a client that does not take it is cut off later. */
  end(): void;
  /** Drops the connection at once, with whatever it had not sent. */
  destroy(): void;
  onClose(cb: () => void): void;
  /** Who is watching (remote address), for logs. */
  peer?(): string;
}

export interface TableMode {
  printer: TablePrinter;
  include: IncludeObject;
  now: () => number;
}

export interface SessionOptions {
  resource: ResourceInfo;
  namespace?: string;
  filter?: ObjectFilter;
  bookmarks: boolean;
  table?: TableMode;
  /** Unsent bytes (beyond the initial events) after which the watcher is unresponsive and is cut off. */
  maxBufferedBytes: number;
  /** Told when the session is cut off for unresponsiveness, before its connection is dropped. */
  onUnresponsive?: (info: { resource: ResourceInfo; peer: string; bufferedBytes: number }) => void;
}

const frames = new WeakMap<Buffer, Buffer>();

/** An HTTP/1.1 chunk holding buf; cached per buffer so a shared event line is framed once for everyone. */
export function frame(buf: Buffer): Buffer {
  let f = frames.get(buf);
  if (!f) {
    f = Buffer.concat([Buffer.from(`${buf.length.toString(16)}\r\n`), buf, Buffer.from('\r\n')]);
    frames.set(buf, f);
  }
  return f;
}

export class WatchSession implements CacheWatcher {
  readonly namespace?: string;
  readonly filter?: ObjectFilter;
  readonly shareKey?: string;
  private closed = false;
  private sentColumns = false;
  private lastRV = 0;
  private timer: NodeJS.Timeout | undefined;
  private cache: ResourceCache | undefined;
  /** The initial events may exceed the bound on their own: they are allowed on top of it. */
  private allowance = 0;
  /** Bytes handed to the sink, and how many of them the client had taken at the last progress check. */
  private written = 0;
  private taken = 0;
  private stalledSince: number | undefined;
  private readonly closeHandlers: (() => void)[] = [];

  constructor(
    readonly opts: SessionOptions,
    private readonly sink: WatchSink,
  ) {
    if (opts.namespace !== undefined) this.namespace = opts.namespace;
    if (opts.filter) this.filter = opts.filter;
    if (!opts.filter && !opts.table) this.shareKey = `${sink.framed ? 'chunked' : 'plain'}:${opts.namespace ?? '*'}`;
    sink.onClose(() => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onClose(cb: () => void): void {
    this.closeHandlers.push(cb);
  }

  /** Registers with the cache and sends the initial or replayed events (synchronously, so none is missed). */
  begin(cache: ResourceCache, initial: CachedObject[], replay: CacheEvent[], rv: number, initialEventsEnd: boolean): void {
    if (this.closed) return;
    this.cache = cache;
    this.lastRV = rv;
    // Each buffer goes out as it is (shared with the other watchers where the encoding allows), so a
    // watcher that never reads its initial events holds references to them, not a copy of the cache.
    const out = (b: Buffer): Buffer => (this.sink.framed ? frame(b) : b);
    const bufs: Buffer[] = [];
    for (const o of initial) bufs.push(this.opts.table ? out(this.encodeTable('ADDED', o.object)) : o.addedLine(!!this.sink.framed));
    for (const ev of replay) {
      const t = this.typeFor(ev);
      if (t) bufs.push(out(this.encode({ ev, type: t })));
      this.lastRV = Math.max(this.lastRV, ev.rv);
    }
    if (initialEventsEnd) bufs.push(out(this.bookmarkLine(this.lastRV, true)));
    for (const b of bufs) this.allowance += b.length;
    if (bufs.length > 0) {
      for (const b of bufs) this.written += b.length;
      this.sink.write(bufs);
      this.checkBuffered();
    }
    if (!this.closed) cache.watchers.add(this);
  }

  private typeFor(ev: CacheEvent): CacheEventType | undefined {
    return deliveryFor(this, ev);
  }

  deliver(batch: Delivery[]): void {
    if (this.closed) return;
    if (batch.length === 1) {
      const d = batch[0] as Delivery;
      this.lastRV = d.ev.rv;
      this.write(this.encode(d));
      return;
    }
    const bufs = batch.map((d) => (this.sink.framed ? frame(this.encode(d)) : this.encode(d)));
    this.lastRV = (batch[batch.length - 1] as Delivery).ev.rv;
    for (const b of bufs) this.written += b.length;
    this.sink.write(bufs);
    this.checkBuffered();
  }

  encodeBatch(events: CacheEvent[]): { buf: Buffer; rv: number } | null {
    const bufs: Buffer[] = [];
    let rv = 0;
    for (const ev of events) {
      const t = this.typeFor(ev);
      if (!t) continue;
      const line = ev.line(t);
      bufs.push(this.sink.framed ? frame(line) : line);
      rv = ev.rv;
    }
    if (bufs.length === 0) return null;
    return { buf: bufs.length === 1 ? (bufs[0] as Buffer) : Buffer.concat(bufs), rv };
  }

  deliverBytes(buf: Buffer, rv: number): void {
    if (this.closed) return;
    this.lastRV = rv;
    this.written += buf.length;
    this.sink.write(buf);
    this.checkBuffered();
  }

  /** Sent even when nothing changed (rv equal to the last one): the bytes are what tell the client the stream is alive. */
  bookmark(rv: number): void {
    if (this.closed || !this.opts.bookmarks || rv < this.lastRV) return;
    this.lastRV = rv;
    this.write(this.bookmarkLine(rv, false));
  }

  /** An ERROR event with the Status, then the end of the stream (e.g. 410 Expired). */
  fail(err: StatusError): void {
    if (this.closed) return;
    const line = lineFor('ERROR', toStatus(err));
    const out = this.sink.framed ? frame(line) : line;
    this.written += out.length;
    this.sink.write(out);
    this.close();
  }

  setTimeout(ms: number): void {
    this.timer = setTimeout(() => this.close(), ms);
    this.timer.unref();
  }

  /** Ends the stream (timeoutSeconds, a rebuilt cache, shutdown). */
  close(): void {
    if (this.closed) return;
    this.markClosed();
    this.sink.end();
    for (const cb of this.closeHandlers) cb();
  }

  /**
   * Cuts off a watcher that does not read: its connection is dropped with everything unsent, so nothing
   * it held stays in memory (ending the stream would wait for a client that never reads). Its client
   * resumes from its last resourceVersion, as after any dropped watch.
   */
  private closeUnresponsive(bufferedBytes: number): void {
    if (this.closed) return;
    this.markClosed();
    this.opts.onUnresponsive?.({ resource: this.opts.resource, peer: this.sink.peer?.() ?? '', bufferedBytes });
    this.sink.destroy();
    for (const cb of this.closeHandlers) cb();
  }

  private markClosed(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.cache?.watchers.delete(this);
  }

  private checkBuffered(): void {
    const n = this.sink.buffered();
    if (n > this.opts.maxBufferedBytes + this.allowance) this.closeUnresponsive(n);
  }

  private write(buf: Buffer): void {
    const out = this.sink.framed ? frame(buf) : buf;
    this.written += out.length;
    this.sink.write(out);
    this.checkBuffered();
  }

  /**
   * Called periodically (now in ms): a watcher that has had output waiting and taken none of it for
   * unresponsiveMs is cut off, however little it holds (the buffer bound only catches busy streams).
   */
  checkProgress(now: number, unresponsiveMs: number): void {
    if (this.closed) return;
    const buffered = this.sink.buffered();
    const taken = this.written - buffered;
    if (buffered === 0 || taken > this.taken) {
      this.taken = taken;
      this.stalledSince = undefined;
      return;
    }
    this.stalledSince ??= now;
    if (now - this.stalledSince >= unresponsiveMs) this.closeUnresponsive(buffered);
  }

  private bookmarkLine(rv: number, initialEventsEnd: boolean): Buffer {
    const r = this.opts.resource;
    const metadata: KubeObject['metadata'] = { resourceVersion: String(rv) };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    return lineFor('BOOKMARK', { kind: r.kind, apiVersion: groupVersion(r), metadata });
  }

  private encode(d: Delivery): Buffer {
    const t = this.opts.table;
    if (!t) return d.ev.line(d.type);
    if (!this.sentColumns) return this.encodeTable(d.type, d.ev.objectFor(d.type));
    return d.ev.variant(`table:${t.include}:${d.type}`, () => this.encodeTable(d.type, d.ev.objectFor(d.type)));
  }

  private encodeTable(type: CacheEventType, object: KubeObject): Buffer {
    const line = tableEventLine(type, object, this.opts.table as TableMode, !this.sentColumns);
    this.sentColumns = true;
    return line;
  }
}

/** A watch event as a one-row Table (the column definitions only in a watch's first). */
export function tableEventLine(type: string, object: KubeObject, t: TableMode, columns: boolean): Buffer {
  const table = {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: object.metadata.resourceVersion ?? '' },
    columnDefinitions: columns ? t.printer.columns : [],
    rows: [rowFor(object, t.printer, t.include, t.now())],
  };
  return lineFor(type, table);
}
