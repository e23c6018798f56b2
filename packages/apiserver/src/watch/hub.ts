// Starts watches against the cache with Kubernetes' resourceVersion semantics and keeps the set of
// live sessions: periodic bookmarks, closing everyone when the cache is rebuilt, counts for /metrics.
import { errors, type ResourceInfo } from '@kemu/api';
import type { Cacher } from './cacher.ts';
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
}

export class WatchHub {
  readonly sessions = new Set<WatchSession>();
  private ticker: NodeJS.Timeout;

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
  async start(p: WatchParams, so: SessionOptions, sink: WatchSink, onStarted: () => void): Promise<WatchSession> {
    const { rv } = WatchHub.check(p);
    if (rv > 0) await this.cacher.waitFor(rv);
    else if (!this.cacher.isReady()) await this.cacher.waitFor(0);
    const cache = this.cacher.cache(so.resource);
    const session = new WatchSession({ ...so, maxBufferedBytes: this.opts.maxBufferedBytes }, sink);
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
