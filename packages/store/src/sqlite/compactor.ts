// Compaction: delete history no reader at or after the compact revision C can need — rows superseded
// by a newer row of the same key with id <= C, and tombstones with id <= C (and their kv entries) — and
// record C in meta so older watches and lists fail with CompactedError in every process.
//
// Work is done in small write transactions over id ranges of CHUNK revisions, advancing the recorded
// compact revision with each, and yielding to the event loop between them, so writers in this and other
// processes never wait behind a long transaction.
import type { Database, Statement } from 'better-sqlite3';
import type { Logger } from '@kemu/base';
import { isBusy, scalar } from './schema.ts';

const CHUNK = 500;

export interface CompactorOptions {
  retentionMs: number;
  minRevisions: number;
  intervalMs: number;
  logger: Logger;
  now?: () => number;
}

export class Compactor {
  private readonly getCompact: Statement;
  private readonly delSuperseded: Statement;
  private readonly delKvTombstones: Statement;
  private readonly delTombstones: Statement;
  private readonly setCompact: Statement;
  private readonly headStmt: Statement;
  private readonly chunkTx: (target: number) => number;
  private samples: Array<{ at: number; rev: number }> = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(
    db: Database,
    private readonly opts: CompactorOptions,
  ) {
    this.getCompact = db.prepare("SELECT value FROM meta WHERE name = 'compact_revision'").pluck();
    this.delSuperseded = db.prepare(
      'DELETE FROM log WHERE id IN (SELECT prev_revision FROM log WHERE id > ? AND id <= ? AND prev_revision > 0)',
    );
    this.delKvTombstones = db.prepare(
      'DELETE FROM kv WHERE deleted = 1 AND id <= ? AND name IN (SELECT name FROM log WHERE id > ? AND id <= ? AND deleted = 1)',
    );
    this.delTombstones = db.prepare('DELETE FROM log WHERE id > ? AND id <= ? AND deleted = 1');
    this.setCompact = db.prepare("UPDATE meta SET value = ? WHERE name = 'compact_revision'");
    this.headStmt = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'log'").pluck();
    // Returns the compact revision after this chunk (read inside the lock: another process may be
    // compacting too, and then we simply continue from where it got).
    this.chunkTx = db.transaction((target: number): number => {
      const from = scalar(this.getCompact.get());
      if (from >= target) return from;
      const to = Math.min(target, from + CHUNK);
      this.delSuperseded.run(from, to);
      this.delKvTombstones.run(to, from, to);
      this.delTombstones.run(from, to);
      this.setCompact.run(to);
      return to;
    }).immediate;
  }

  start(): void {
    const now = this.opts.now ?? Date.now;
    this.timer = setInterval(() => {
      let head: number;
      try {
        head = scalar(this.headStmt.get());
        this.samples.push({ at: now(), rev: head });
      } catch (err) {
        this.opts.logger.warn({ err }, 'store compaction: reading head revision failed');
        return;
      }
      // The newest revision that is older than the retention window, keeping minRevisions.
      const cutoff = now() - this.opts.retentionMs;
      let target = 0;
      while (this.samples.length > 0 && (this.samples[0] as { at: number }).at <= cutoff) {
        target = (this.samples.shift() as { rev: number }).rev;
      }
      target = Math.min(target, head - this.opts.minRevisions);
      if (target > 0) {
        this.compact(target).catch((err: unknown) => this.opts.logger.warn({ err }, 'store compaction failed'));
      }
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  stop(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    return this.running ?? Promise.resolve();
  }

  /** Compact up to target (clamped to the head revision) in small transactions. */
  compact(target: number): Promise<void> {
    const prev = this.running ?? Promise.resolve();
    const run = prev.then(() => this.run(target));
    this.running = run.finally(() => {
      if (this.running === run) this.running = undefined;
    });
    return run;
  }

  private async run(requested: number): Promise<void> {
    const target = Math.min(requested, scalar(this.headStmt.get()));
    let busy = 0;
    for (;;) {
      if (this.closed) return;
      let reached: number;
      try {
        reached = this.chunkTx(target);
        busy = 0;
      } catch (err) {
        if (!isBusy(err)) throw err;
        busy++;
        await sleep(Math.min(5, busy));
        continue;
      }
      if (reached >= target) break;
      // Let writers in (ours through the event loop, other processes through the lock).
      await sleep(1);
    }
    this.opts.logger.debug({ revision: target }, 'store compacted');
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
