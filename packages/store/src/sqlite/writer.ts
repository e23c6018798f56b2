// Group commit: writes submitted in the same turn of the event loop (or while this process waits for
// the write lock) go into one BEGIN IMMEDIATE transaction, each as its own log row and revision. Each
// write's precondition is checked inside the transaction against the state left by the writes before
// it, so batching changes nothing a caller can observe except speed.
//
// The write connection has busy_timeout 0: SQLite's own busy handler would sleep inside the call and
// freeze this process's event loop while another process holds the lock. Instead a busy BEGIN is
// retried from a timer, so the process keeps serving (and keeps queueing writes into the next batch).
//
// Health hooks (sqlite/health.ts): a failed transaction is reported (onFailure); a fenced store refuses the
// queue before starting one (refusal); and after each commit, before any write of the batch is
// acknowledged, verify checks that the files committed to are still the ones on disk.
import type { Database, Statement } from 'better-sqlite3';
import type { Logger } from '@kemu/base';
import { KeyExistsError, KeyNotFoundError, RevisionMismatchError, type KeyValue } from '../backend.ts';
import { int, isBusy, str } from './schema.ts';

export type WriteOp =
  | { kind: 'create'; key: string; value: string }
  | { kind: 'update'; key: string; value: string; expected: number }
  | { kind: 'delete'; key: string; expected: number }
  /** The health probe: rewrites one row of meta, takes no revision and touches no key. */
  | { kind: 'probe' };

interface Pending {
  op: WriteOp;
  resolve: (kv: KeyValue) => void;
  reject: (err: Error) => void;
  since: number;
}

type Outcome = { ok: true; kv: KeyValue } | { ok: false; err: Error };

export interface WriterOptions {
  maxBatch?: number;
  /** Give up (and reject) a write that could not get the lock for this long. */
  lockWaitMs?: number;
  /** Called synchronously after every commit (the change feed polls at once). */
  onCommit: () => void;
  /** Before a transaction: an error to refuse the whole queue with instead (the store is fenced). */
  refusal?: () => Error | undefined;
  /** After a commit, before acknowledging it: an error to reject the batch with (its files are gone). */
  verify?: () => Error | undefined;
  /** A transaction failed for a reason other than a busy lock (disk full, read-only, I/O error). */
  onFailure?: (err: Error) => void;
  logger: Logger;
}

export class StoreBusyError extends Error {
  constructor(ms: number) {
    super(`store busy: could not get the write lock within ${ms}ms`);
    this.name = 'StoreBusyError';
  }
}

export class GroupWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private attempts = 0;
  private readonly maxBatch: number;
  private readonly lockWaitMs: number;
  private readonly selKv: Statement;
  private readonly selValue: Statement;
  private readonly insLog: Statement;
  private readonly upsertKv: Statement;
  private readonly probeStmt: Statement;
  private readonly txn: (batch: Pending[]) => Outcome[];
  private idleWaiters: Array<() => void> = [];
  /** Commits and rows written by this process (for benchmarks and metrics). */
  readonly stats = { commits: 0, rows: 0, busyRetries: 0 };

  constructor(
    private readonly db: Database,
    private readonly opts: WriterOptions,
  ) {
    this.maxBatch = opts.maxBatch ?? 500;
    this.lockWaitMs = opts.lockWaitMs ?? 60_000;
    this.selKv = db.prepare('SELECT id, deleted FROM kv WHERE name = ?');
    this.selValue = db.prepare('SELECT created, create_revision, value FROM log WHERE id = ?');
    this.insLog = db.prepare(
      'INSERT INTO log (name, created, deleted, create_revision, prev_revision, value, old_value) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.upsertKv = db.prepare(
      'INSERT INTO kv (name, id, deleted) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET id = excluded.id, deleted = excluded.deleted',
    );
    this.probeStmt = db.prepare(
      "INSERT INTO meta (name, value) VALUES ('health_probe', 1) ON CONFLICT(name) DO UPDATE SET value = value + 1",
    );
    this.txn = db.transaction((batch: Pending[]) => batch.map((p) => this.apply(p.op))).immediate;
  }

  submit(op: WriteOp): Promise<KeyValue> {
    return new Promise<KeyValue>((resolve, reject) => {
      this.queue.push({ op, resolve, reject, since: Date.now() });
      this.schedule(false);
    });
  }

  /** A write that proves the store can commit (the health probe); rejects as a client's write would. */
  probe(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ op: { kind: 'probe' }, resolve: () => resolve(), reject, since: Date.now() });
      this.schedule(false);
    });
  }

  /** Resolves once every submitted write has been committed or rejected. */
  drain(): Promise<void> {
    if (this.queue.length === 0 && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(afterBusy: boolean): void {
    if (this.scheduled) return;
    this.scheduled = true;
    if (afterBusy) {
      // Another process holds the lock; its transaction is short. Back off a little, with jitter so
      // waiting processes do not retry in lockstep.
      const delay = Math.min(4, this.attempts) * Math.random();
      setTimeout(() => this.flush(), delay);
    } else {
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) {
      this.notifyIdle();
      return;
    }
    const refused = this.opts.refusal?.();
    if (refused) {
      const all = this.queue;
      this.queue = [];
      for (const p of all) p.reject(refused);
      this.notifyIdle();
      return;
    }
    const batch = this.queue.slice(0, this.maxBatch);
    let outcomes: Outcome[];
    try {
      outcomes = this.txn(batch);
    } catch (err) {
      if (isBusy(err)) {
        this.attempts++;
        this.stats.busyRetries++;
        this.expireStale();
        this.schedule(true);
        return;
      }
      // A real failure (disk full, I/O error): the transaction rolled back; fail this batch only.
      this.queue.splice(0, batch.length);
      this.opts.logger.error({ err }, 'store write transaction failed');
      const e = err instanceof Error ? err : new Error(String(err));
      this.opts.onFailure?.(e);
      for (const p of batch) p.reject(e);
      this.attempts = 0;
      this.schedule(false);
      return;
    }
    this.queue.splice(0, batch.length);
    this.attempts = 0;
    this.stats.commits++;
    this.stats.rows += batch.filter((p, i) => p.op.kind !== 'probe' && (outcomes[i] as Outcome).ok).length;
    // Checked before anyone is told: a commit into a file that is no longer on disk is not acknowledged.
    const lost = this.opts.verify?.();
    try {
      this.opts.onCommit();
    } catch (err) {
      this.opts.logger.error({ err }, 'change feed poll after commit failed');
    }
    batch.forEach((p, i) => {
      const o = outcomes[i] as Outcome;
      if (lost) p.reject(lost);
      else if (o.ok) p.resolve(o.kv);
      else p.reject(o.err);
    });
    if (this.queue.length > 0) this.schedule(false);
    else this.notifyIdle();
  }

  private expireStale(): void {
    const now = Date.now();
    const keep: Pending[] = [];
    for (const p of this.queue) {
      if (now - p.since > this.lockWaitMs) p.reject(new StoreBusyError(this.lockWaitMs));
      else keep.push(p);
    }
    this.queue = keep;
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** One write inside the open transaction. Precondition failures are outcomes, not throws. */
  private apply(op: WriteOp): Outcome {
    if (op.kind === 'probe') {
      this.probeStmt.run();
      return { ok: true, kv: { key: '', value: '', modRevision: 0, createRevision: 0 } };
    }
    const cur: unknown = this.selKv.get(op.key);
    const live = cur !== undefined && int(cur, 'deleted') === 0;
    if (op.kind === 'create') {
      if (live) return { ok: false, err: new KeyExistsError(op.key) };
      const prev = cur === undefined ? 0 : int(cur, 'id');
      const id = Number(this.insLog.run(op.key, 1, 0, 0, prev, op.value, null).lastInsertRowid);
      this.upsertKv.run(op.key, id, 0);
      return { ok: true, kv: { key: op.key, value: op.value, modRevision: id, createRevision: id } };
    }
    if (!live) return { ok: false, err: new KeyNotFoundError(op.key) };
    const curId = int(cur, 'id');
    const row: unknown = this.selValue.get(curId);
    const createRevision = int(row, 'created') !== 0 ? curId : int(row, 'create_revision');
    const curValue = str(row, 'value');
    if (op.expected && op.expected !== curId) {
      const current: KeyValue = { key: op.key, value: curValue, modRevision: curId, createRevision };
      return { ok: false, err: new RevisionMismatchError(op.key, op.expected, current) };
    }
    const deleted = op.kind === 'delete';
    const value = deleted ? curValue : op.value;
    const id = Number(this.insLog.run(op.key, 0, deleted ? 1 : 0, createRevision, curId, value, curValue).lastInsertRowid);
    this.upsertKv.run(op.key, id, deleted ? 1 : 0);
    return { ok: true, kv: { key: op.key, value, modRevision: id, createRevision } };
  }
}
