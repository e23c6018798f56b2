// Starts watches against the cache with Kubernetes' resourceVersion semantics and keeps the set of
// live sessions: periodic bookmarks, closing everyone when the cache is rebuilt, counts for /metrics.
import { errors, type ResourceInfo } from '@kemu/api';
import { webhookConversionOf } from '../storage.ts';
import type { Cacher } from './cacher.ts';
import { convertingSink } from './converting-sink.ts';
import { WatchSession, type SessionOptions, type WatchSink } from './session.ts';

export interface WatchParams {
  /** The resourceVersion query parameter ('' when absent). */
  resourceVersion: string;
  resourceVersionMatch: string;
  sendInitialEvents: boolean | undefined;
  timeoutMs: number;
}

/**
 * Default BOOKMARK interval for watches with allowWatchBookmarks=true. Clients treat a watch that sends
 * nothing for a while as dead (kemu's reflector: 15 s) and reconnect; a bookmark every 5 s keeps a quiet
 * watch well inside that deadline (three bookmarks per deadline, so one delayed tick is harmless).
 */
export const DEFAULT_WATCH_BOOKMARK_INTERVAL_MS = 5_000;

export interface HubOptions {
  bookmarkIntervalMs: number;
  /** A watcher whose unsent output exceeds this is cut off (its client resumes from its last RV). */
  maxBufferedBytes: number;
  /** A watcher that takes none of its pending output for this long is cut off too. 0: never. */
  unresponsiveTimeoutMs?: number;
  /** Told of each watcher cut off for unresponsiveness (log line, metric). */
  onUnresponsive?: SessionOptions['onUnresponsive'];
}

/** Kubernetes' cacher gives a blocked watcher well under a second; kemu's default is lenient. */
export const DEFAULT_WATCH_UNRESPONSIVE_TIMEOUT_MS = 30_000;
/** The default bound on a watcher's unsent output. */
export const DEFAULT_MAX_WATCH_BUFFER_BYTES = 16 * 1024 * 1024;

export class WatchHub {
  readonly sessions = new Set<WatchSession>();
  private ticker: NodeJS.Timeout;
  private progressTicker: NodeJS.Timeout | undefined;

  constructor(
    private readonly cacher: Cacher,
    private readonly opts: HubOptions,
  ) {
    this.ticker = setInterval(() => {
      // A bookmark promises every earlier event was sent: deliver coalesced events first.
      for (const c of this.cacher.caches.values()) c.flushPending();
      for (const s of this.sessions) s.bookmark(this.cacher.rv);
    }, opts.bookmarkIntervalMs);
    this.ticker.unref();
    const unresponsive = opts.unresponsiveTimeoutMs ?? DEFAULT_WATCH_UNRESPONSIVE_TIMEOUT_MS;
    if (unresponsive > 0) {
      this.progressTicker = setInterval(() => {
        const now = performance.now();
        for (const s of this.sessions) s.checkProgress(now, unresponsive);
      }, Math.min(1_000, Math.max(50, Math.floor(unresponsive / 4))));
      this.progressTicker.unref();
    }
  }

  count(r?: ResourceInfo): number {
    if (!r) return this.sessions.size;
    let n = 0;
    for (const s of this.sessions) if (s.opts.resource === r) n++;
    return n;
  }

  closeAll(): void {
    for (const s of [...this.sessions]) s.close();
  }

  stop(): void {
    clearInterval(this.ticker);
    if (this.progressTicker) clearInterval(this.progressTicker);
    this.closeAll();
  }

  /** Validates the parameters (throws StatusError before any byte is sent). */
  static check(p: WatchParams): { rv: number } {
    const rv = p.resourceVersion === '' ? 0 : Number(p.resourceVersion);
    if (!Number.isInteger(rv) || rv < 0) throw errors.badRequest(`invalid resource version: "${p.resourceVersion}"`);
    if (p.sendInitialEvents !== undefined && p.resourceVersionMatch !== 'NotOlderThan') {
      throw errors.invalid('', 'ListOptions', '', [
        { reason: 'FieldValueInvalid', field: 'resourceVersionMatch', message: "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" },
      ]);
    }
    if (p.resourceVersionMatch && p.resourceVersionMatch !== 'NotOlderThan' && p.resourceVersionMatch !== 'Exact') {
      throw errors.badRequest(`resourceVersionMatch: unsupported value "${p.resourceVersionMatch}"`);
    }
    return { rv };
  }

  /** Waits for the cache to reach the requested revision, then starts streaming. */
  async start(p: WatchParams, opts: SessionOptions, client: WatchSink, onStarted: () => void): Promise<WatchSession> {
    const { rv } = WatchHub.check(p);
    // A version converted by its CRD's webhook: the cache holds the stored form, the sink converts (and prints Tables).
    const conv = webhookConversionOf(opts.resource);
    let so = opts;
    let sink = client;
    if (conv) {
      const { table, ...rest } = opts;
      so = rest;
      sink = convertingSink(client, conv, table);
    }
    if (rv > 0) await this.cacher.waitFor(rv);
    else if (!this.cacher.isReady()) await this.cacher.waitFor(0);
    const cache = this.cacher.cache(so.resource);
    const session = new WatchSession({ ...so, maxBufferedBytes: this.opts.maxBufferedBytes, ...(this.opts.onUnresponsive ? { onUnresponsive: this.opts.onUnresponsive } : {}) }, sink);
    onStarted();
    this.sessions.add(session);
    session.onClose(() => this.sessions.delete(session));
    session.setTimeout(p.timeoutMs);
    // Coalesced events not yet delivered are already in the snapshot and the ring: deliver them to the
    // existing watchers first, so the new one does not get them twice.
    cache.flushPending();
    // Legacy semantics: RV unset or 0 = the current state as ADDED events; sendInitialEvents overrides.
    const initial = p.sendInitialEvents ?? (rv === 0);
    if (initial) {
      const snapshot = cache.snapshot(so.namespace, so.filter);
      session.begin(cache, snapshot, [], this.cacher.rv, p.sendInitialEvents === true && so.bookmarks);
      return session;
    }
    if (rv === 0) {
      // sendInitialEvents=false without a resourceVersion: just the changes from now on.
      session.begin(cache, [], [], this.cacher.rv, false);
      return session;
    }
    const replay = cache.since(rv);
    if (!replay) {
      session.fail(errors.gone(`too old resource version: ${rv} (${cache.startRV + 1})`));
      return session;
    }
    session.begin(cache, [], replay, rv, false);
    return session;
  }
}
