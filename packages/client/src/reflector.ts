// The reflector (client-go's reflector.go): keeps a sink in step with the server.
// - List in pages of `pageSize` at resourceVersion "" (a consistent read), hand the whole set to the
//   sink as one replace, then watch from the list's resourceVersion with bookmarks and a random
//   timeoutSeconds in [min, 2×min] so many clients do not reconnect together.
// - A watch that ends (server timeout, dropped connection, dead-stream deadline) resumes from the last
//   resourceVersion seen — through a load balancer that is usually another replica — without re-listing.
// - 410 Expired (HTTP or ERROR event) or an undecodable stream → re-list; the sink derives adds, updates
//   and deletes from the difference.
// - Failures back off exponentially (800 ms doubling to 30 s, jittered), reset once a watch makes progress.
import type { KubeObject } from '@kemu/api';
import { realClock, silentLogger, type Clock, type Logger } from '@kemu/base';
import { isResourceExpired } from './errors.ts';
import type { ListerWatcher } from './listwatch.ts';
import { WatchDecodeError } from './watch.ts';

export interface ReflectorSink<T> {
  /** The full state at resourceVersion rv (after a list). */
  replace(items: T[], rv: string): void;
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
  /** A bookmark moved the resourceVersion forward (optional). */
  bookmark?(rv: string): void;
}

export interface ReflectorOptions {
  name?: string;
  clock?: Clock;
  logger?: Logger;
  /** List page size (default 500; 0 = no paging). */
  pageSize?: number;
  /** Watches ask for timeoutSeconds in [min, 2×min] (default 300 → 300..600 s). */
  minWatchTimeoutSeconds?: number;
  /** No byte for this long on a watch → presumed dead, resume elsewhere (default 15 s; 0 = off). */
  watchIdleTimeoutMs?: number;
  /** Back-off after a failure: initial (800 ms) doubling up to max (30 s), jitter factor 1. */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
}

/** Why the inner loop stopped: a re-list is needed, or the watch can resume from the last RV. */
type WatchEnd = 'resume' | 'relist';

export class Reflector<T extends KubeObject> {
  private readonly name: string;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly pageSize: number;
  private readonly minWatchTimeout: number;
  private readonly idleMs: number;
  private readonly backoffInitial: number;
  private readonly backoffMax: number;
  private rv = '';
  private failures = 0;
  /** Counters for tests and metrics. */
  readonly stats = { lists: 0, watches: 0, relistsOnExpired: 0, idleTimeouts: 0 };

  constructor(
    private readonly lw: ListerWatcher<T>,
    private readonly sink: ReflectorSink<T>,
    opts: ReflectorOptions = {},
  ) {
    this.name = opts.name ?? 'reflector';
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? silentLogger()).child({ reflector: this.name });
    this.pageSize = opts.pageSize ?? 500;
    this.minWatchTimeout = opts.minWatchTimeoutSeconds ?? 300;
    this.idleMs = opts.watchIdleTimeoutMs ?? 15_000;
    this.backoffInitial = opts.backoffInitialMs ?? 800;
    this.backoffMax = opts.backoffMaxMs ?? 30_000;
  }

  /** The resourceVersion of the last list, event or bookmark ("" before the first list). */
  lastSyncResourceVersion(): string {
    return this.rv;
  }

  /** Runs until the signal aborts. Never throws for server or network trouble. */
  async run(signal: AbortSignal): Promise<void> {
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.listAll(signal);
          needList = false;
        }
        const end = await this.watchOnce(signal);
        if (end === 'relist') needList = true;
        continue;
      } catch (e) {
        if (signal.aborted) break;
        this.failures++;
        this.log.warn({ err: String(e), failures: this.failures }, needList ? 'list failed' : 'watch failed');
      }
      try {
        await this.clock.sleep(this.backoff(), signal);
      } catch {
        break;
      }
    }
  }

  private backoff(): number {
    const base = Math.min(this.backoffMax, this.backoffInitial * 2 ** Math.max(0, this.failures - 1));
    return Math.min(this.backoffMax, base * (1 + Math.random()));
  }

  /** Lists every page at RV "" and replaces the sink's state. A 410 on a continue token → one unpaged list. */
  private async listAll(signal: AbortSignal): Promise<void> {
    const items: T[] = [];
    let rv = '';
    let cont: string | undefined;
    let limit: number | undefined = this.pageSize > 0 ? this.pageSize : undefined;
    do {
      let page;
      try {
        page = await this.lw.list({ limit, continue: cont, signal });
      } catch (e) {
        if (cont && isResourceExpired(e)) {
          this.log.info('continue token expired, listing without paging');
          items.length = 0;
          cont = undefined;
          limit = undefined;
          continue;
        }
        throw e;
      }
      items.push(...page.items);
      rv = page.metadata.resourceVersion ?? '';
      cont = page.metadata.continue || undefined;
    } while (cont);
    if (signal.aborted) return;
    this.rv = rv;
    this.sink.replace(items, rv);
    this.stats.lists++;
    this.log.debug({ items: items.length, rv }, 'listed');
  }

  /** One watch from the last RV: 'resume' when it ends or dies, 'relist' on 410/decoding trouble; throws when it cannot start. */
  private async watchOnce(signal: AbortSignal): Promise<WatchEnd> {
    this.stats.watches++;
    const timeoutSeconds = Math.floor(this.minWatchTimeout * (1 + Math.random()));
    const started = this.clock.now();
    let events = 0;
    try {
      const stream = this.lw.watch({
        resourceVersion: this.rv,
        allowWatchBookmarks: true,
        timeoutSeconds,
        idleTimeoutMs: this.idleMs,
        signal,
      });
      for await (const ev of stream) {
        events++;
        this.failures = 0;
        const rv = ev.object.metadata?.resourceVersion;
        switch (ev.type) {
          case 'ADDED':
            this.sink.add(ev.object);
            break;
          case 'MODIFIED':
            this.sink.update(ev.object);
            break;
          case 'DELETED':
            this.sink.delete(ev.object);
            break;
          case 'BOOKMARK':
            if (rv) this.sink.bookmark?.(rv);
            break;
          default:
            break;
        }
        if (rv) this.rv = rv;
      }
    } catch (e) {
      if (signal.aborted) return 'resume';
      if (isResourceExpired(e)) {
        this.stats.relistsOnExpired++;
        this.log.info({ rv: this.rv, err: (e as Error).message }, 'watch expired, re-listing');
        return 'relist';
      }
      if (e instanceof WatchDecodeError) {
        this.log.warn({ err: e.message }, 're-listing');
        return 'relist';
      }
      if ((e as Error).name === 'WatchIdleTimeoutError') {
        // The deadline itself spaces these out, so resume at once (through a balancer: likely elsewhere).
        this.stats.idleTimeouts++;
        this.log.info({ rv: this.rv }, (e as Error).message);
        return 'resume';
      }
      // A watch that made progress (or lived a while) before breaking resumes at once; one that never got going backs off.
      if (events === 0 && this.clock.now() - started < 1000) throw e;
      this.log.debug({ err: String(e), rv: this.rv }, 'watch broke, resuming');
      return 'resume';
    }
    if (events === 0 && this.clock.now() - started < 1000) {
      throw new Error('very short watch: the server closed the stream at once');
    }
    return 'resume';
  }
}
