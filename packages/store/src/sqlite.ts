// SqliteBackend: the Backend contract on one SQLite file (WAL) that several processes open at once.
// Log-structured as kine is (schema in sqlite/schema.ts): every write appends one log row whose id is
// the revision. Pieces: GroupWriter (batched BEGIN IMMEDIATE writes with async busy retry), Reader
// (snapshot reads), ChangeFeed (tail + watchers), Compactor (small-batch history removal).
//
// Two connections per process: the writer's has busy_timeout 0 (a busy lock is retried from a timer,
// never by sleeping inside SQLite, which would freeze the event loop); the reader's keeps a busy
// timeout for the rare cases a WAL reader must wait (recovery after a crash of another process).
//
// Write health (sqlite/health.ts) is what healthy() reports: a failed write or a failed probe makes it
// false until a write succeeds again; a database, WAL or shared-memory file deleted or replaced underneath
// the open store fences it (writes refused with StoreUnavailableError) until restart, since a crash would
// lose them.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as DB } from 'better-sqlite3';
import { silentLogger, type Logger } from '@kemu/base';
import type { Backend, KeyValue, ListOptions, ListResult, Watch, WatchHandlers } from './backend.ts';
import type { Synchronous } from './endpoint.ts';
import { ChangeFeed } from './sqlite/feed.ts';
import { Compactor } from './sqlite/compactor.ts';
import { FileIdentity } from './sqlite/file-identity.ts';
import { StoreHealth } from './sqlite/health.ts';
import { Reader } from './sqlite/reader.ts';
import { SCHEMA, isBusy } from './sqlite/schema.ts';
import { checkKey } from './keys.ts';
import { GroupWriter } from './sqlite/writer.ts';

export interface SqliteOptions {
  /** Path of the database file (created with its directory if missing). */
  path: string;
  /** PRAGMA synchronous. NORMAL (default) is durable against process crashes in WAL mode; FULL also against power loss. */
  synchronous?: Synchronous;
  /** How often to check for other processes' commits (PRAGMA data_version). Default 2 ms. */
  pollIntervalMs?: number;
  /** History younger than this is kept. Default 5 minutes. */
  compactRetentionMs?: number;
  /** At least this many latest revisions are kept by timed compaction. Default 1000. */
  compactMinRevisions?: number;
  /** How often timed compaction runs. Default 60 s; 0 disables it (explicit compact() still works). */
  compactIntervalMs?: number;
  /** Busy timeout of the reading connection and of opening the file. Default 10 s. */
  busyTimeoutMs?: number;
  /** Most writes committed in one transaction. Default 500. */
  maxBatch?: number;
  /** kube-apiserver's --etcd-healthcheck-timeout: a write probe slower than this fails healthy(); probes run at most every half of it. Default 2 s. */
  healthCheckTimeoutMs?: number;
  logger?: Logger;
}

export class SqliteBackend implements Backend {
  private readonly writeDb: DB;
  private readonly readDb: DB;
  private readonly writer: GroupWriter;
  private readonly reader: Reader;
  private readonly feed: ChangeFeed;
  private readonly compactor: Compactor;
  private readonly health: StoreHealth;
  private readonly logger: Logger;
  private closed = false;

  constructor(opts: SqliteOptions) {
    this.logger = opts.logger ?? silentLogger();
    const busyTimeoutMs = opts.busyTimeoutMs ?? 10_000;
    const sync = opts.synchronous ?? 'NORMAL';
    if (opts.path !== ':memory:') mkdirSync(dirname(opts.path), { recursive: true });

    // Setup runs once at startup, so it may block on the busy timeout while another process is
    // creating the schema at the same moment.
    // SQLite answers some startup races (switching to WAL, WAL recovery) with SQLITE_BUSY without calling the
    // busy handler, so the setup statements are retried here as well.
    const setup = <T>(fn: () => T): T => retryWhileBusy(fn, busyTimeoutMs);
    this.writeDb = setup(() => new Database(opts.path, { timeout: busyTimeoutMs }));
    setup(() => this.writeDb.pragma('journal_mode = WAL'));
    setup(() => this.writeDb.pragma(`synchronous = ${sync}`));
    setup(() => this.writeDb.exec(SCHEMA));
    this.writeDb.pragma('busy_timeout = 0');

    this.readDb = setup(() => new Database(opts.path, { timeout: busyTimeoutMs }));
    setup(() => this.readDb.pragma(`synchronous = ${sync}`));

    this.reader = new Reader(this.readDb);
    this.feed = new ChangeFeed(this.readDb, this.logger, opts.pollIntervalMs ?? 2);
    // Both connections have read the file by now (the schema, the feed's head), so the WAL and shared
    // memory files this process holds are the ones on disk.
    const files = opts.path === ':memory:' ? undefined : new FileIdentity(opts.path);
    const checkpoint = this.writeDb.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    this.health = new StoreHealth({
      files,
      probe: () => this.writer.probe(),
      rescue: () => checkpointDone(checkpoint.get()),
      timeoutMs: opts.healthCheckTimeoutMs ?? 2000,
      logger: this.logger,
    });
    this.writer = new GroupWriter(this.writeDb, {
      onCommit: () => this.feed.poll(),
      refusal: () => this.health.refusal(),
      verify: () => this.health.verifyCommit(),
      onFailure: (err) => this.health.writeFailed(err),
      logger: this.logger,
      ...(opts.maxBatch !== undefined ? { maxBatch: opts.maxBatch } : {}),
    });
    this.compactor = new Compactor(this.writeDb, {
      retentionMs: opts.compactRetentionMs ?? 5 * 60_000,
      minRevisions: opts.compactMinRevisions ?? 1000,
      intervalMs: opts.compactIntervalMs ?? 60_000,
      logger: this.logger,
    });
    if ((opts.compactIntervalMs ?? 60_000) > 0) this.compactor.start();
  }

  /** Commit/row/retry counters of this process's writer. */
  get writeStats(): { commits: number; rows: number; busyRetries: number } {
    return { ...this.writer.stats };
  }

  async get(key: string): Promise<KeyValue | undefined> {
    return this.read(() => this.reader.get(key));
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    return this.read(() => this.reader.list(prefix, opts));
  }

  async count(prefix: string): Promise<number> {
    return this.read(() => this.reader.count(prefix));
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.checkOpen();
    checkKey(key);
    return this.writer.submit({ kind: 'create', key, value });
  }

  async update(key: string, value: string, expectedRevision?: number): Promise<KeyValue> {
    this.checkOpen();
    checkKey(key);
    return this.writer.submit({ kind: 'update', key, value, expected: expectedRevision ?? 0 });
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    this.checkOpen();
    checkKey(key);
    return this.writer.submit({ kind: 'delete', key, expected: expectedRevision ?? 0 });
  }

  async currentRevision(): Promise<number> {
    return this.read(() => this.reader.currentRevision());
  }

  async compactRevision(): Promise<number> {
    return this.read(() => this.reader.compactRevision());
  }

  watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Watch {
    if (this.closed) {
      setImmediate(() => handlers.onError(new Error('store is closed')));
      return { close: () => {} };
    }
    return this.feed.watch(prefix, fromRevision, handlers);
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    return this.compactor.compact(revision);
  }

  /** Readable, and writable as far as the last write or probe shows (see sqlite/health.ts). */
  async healthy(): Promise<boolean> {
    if (this.closed) return false;
    try {
      if (!this.reader.ping()) return false;
    } catch {
      return false;
    }
    return this.health.healthy();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writer.drain();
    await this.compactor.stop();
    this.feed.close();
    this.readDb.close();
    this.writeDb.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  /** Reads rarely meet a busy lock in WAL mode; when they do, retry rather than fail the request. */
  private async read<T>(fn: () => T): Promise<T> {
    this.checkOpen();
    for (let attempt = 0; ; attempt++) {
      try {
        return fn();
      } catch (err) {
        if (!isBusy(err) || attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, Math.min(10, attempt + 1)));
      }
    }
  }
}

/** PRAGMA wal_checkpoint's row: true when it was not blocked and copied every frame of the log. */
function checkpointDone(row: unknown): boolean {
  if (typeof row !== 'object' || row === null) return false;
  const r = row as Record<string, unknown>;
  return r.busy === 0 && typeof r.log === 'number' && r.log === r.checkpointed;
}

/** Runs a startup statement, retrying (blocking briefly) while the database is busy or locked. */
function retryWhileBusy<T>(fn: () => T, timeoutMs: number): T {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; ; attempt++) {
    try {
      return fn();
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      const busy = typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
      if (!busy || Date.now() >= deadline) throw e;
      Atomics.wait(pause, 0, 0, Math.min(50, 2 + attempt * 5 + Math.random() * 5));
    }
  }
}
