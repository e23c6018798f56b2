// The change feed: this process tails the log (rows with id > lastSeen) and hands each row to the
// watchers whose prefix it matches.
//
// Why tailing by id is gap-free: ids are assigned inside BEGIN IMMEDIATE transactions, which hold
// SQLite's single write lock from before the id is chosen until after COMMIT, across every process
// using the file. So the transaction that got id N committed before the one that got N+1 could even
// begin. A WAL reader's snapshot is a prefix of the commit sequence (it reads the WAL up to the last
// commit frame present when its read transaction began), so if it sees N+1 it also sees N. Ids are
// never reused (AUTOINCREMENT; a rolled-back insert leaves no row and its id is taken by the next
// commit). Compaction only removes rows at or below the recorded compact revision, and the tail reads
// that revision in the same snapshot as the rows, so it can tell when it has fallen behind it.
//
// Wake-ups: right after this process commits (GroupWriter.onCommit), and whenever PRAGMA data_version
// on the reading connection changes — a cheap check run every pollIntervalMs that changes exactly when
// another connection (another process, or this process's writer) has committed.
import type { Database, Statement } from 'better-sqlite3';
import type { Logger } from '@kemu/base';
import { CompactedError, type Watch, type WatchEvent, type WatchHandlers } from '../backend.ts';
import { prefixEnd } from '../keys.ts';
import { LOG_COLUMNS, parseLogRow, rowToEvent, scalar, type LogRow } from './schema.ts';

const TAIL_BATCH = 1000;
const REPLAY_BATCH = 500;
/** At most this many revisions scanned per replay step, so a sparse prefix cannot stall the loop. */
const REPLAY_SPAN = 5000;
const NO_UPPER = '\u{10ffff}\u{10ffff}\u{10ffff}\u{10ffff}';

interface FeedWatcher {
  prefix: string;
  upper: string;
  handlers: WatchHandlers;
  /** Every write with revision <= pos has been delivered (or did not match). */
  pos: number;
  /** Caught up with the tail: receives rows as the tail reads them. */
  live: boolean;
  closed: boolean;
}

export class ChangeFeed {
  private lastSeen: number;
  private dataVersion: number;
  private readonly watchers = new Set<FeedWatcher>();
  private readonly tailStmt: Statement;
  private readonly replayStmt: Statement;
  private readonly compactStmt: Statement;
  private readonly dataVersionStmt: Statement;
  private readonly headStmt: Statement;
  private readonly readTail: (after: number) => { compacted: number; rows: LogRow[] };
  private readonly readReplay: (
    after: number,
    upTo: number,
    lo: string,
    hi: string,
  ) => { compacted: number; rows: LogRow[] };
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private closed = false;

  constructor(
    db: Database,
    private readonly logger: Logger,
    pollIntervalMs: number,
  ) {
    this.tailStmt = db.prepare(`SELECT ${LOG_COLUMNS} FROM log WHERE id > ? ORDER BY id LIMIT ${TAIL_BATCH}`);
    this.replayStmt = db.prepare(
      `SELECT ${LOG_COLUMNS} FROM log WHERE id > ? AND id <= ? AND name >= ? AND name < ? ORDER BY id LIMIT ${REPLAY_BATCH}`,
    );
    this.compactStmt = db.prepare("SELECT value FROM meta WHERE name = 'compact_revision'").pluck();
    this.dataVersionStmt = db.prepare('PRAGMA data_version').pluck();
    this.headStmt = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'log'").pluck();
    this.readTail = db.transaction((after: number) => ({
      compacted: scalar(this.compactStmt.get()),
      rows: this.tailStmt.all(after).map(parseLogRow),
    }));
    this.readReplay = db.transaction((after: number, upTo: number, lo: string, hi: string) => ({
      compacted: scalar(this.compactStmt.get()),
      rows: this.replayStmt.all(after, upTo, lo, hi).map(parseLogRow),
    }));
    this.dataVersion = scalar(this.dataVersionStmt.get());
    this.lastSeen = scalar(this.headStmt.get());
    this.timer = setInterval(() => this.check(), pollIntervalMs);
    this.timer.unref();
  }

  /** The newest revision this process's feed has read. */
  get position(): number {
    return this.lastSeen;
  }

  watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Watch {
    const w: FeedWatcher = {
      prefix,
      upper: prefixEnd(prefix) ?? NO_UPPER,
      handlers,
      pos: Math.max(0, fromRevision),
      live: false,
      closed: false,
    };
    this.watchers.add(w);
    setImmediate(() => this.catchUp(w));
    return {
      close: () => {
        w.closed = true;
        this.watchers.delete(w);
      },
    };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const w of this.watchers) w.closed = true;
    this.watchers.clear();
  }

  /** The cheap check: has any connection committed since we last looked? */
  private check(): void {
    if (this.closed) return;
    try {
      const v = scalar(this.dataVersionStmt.get());
      if (v === this.dataVersion) return;
      this.dataVersion = v;
    } catch (err) {
      this.logger.warn({ err }, 'store change feed: data_version check failed');
      return;
    }
    this.poll();
  }

  /** Read every new row and dispatch it. Safe to call at any time (own commits call it directly). */
  poll(): void {
    if (this.closed || this.polling) return;
    this.polling = true;
    try {
      for (;;) {
        let res: { compacted: number; rows: LogRow[] };
        try {
          res = this.readTail(this.lastSeen);
        } catch (err) {
          // Busy or transient: the next data_version tick retries.
          this.logger.warn({ err }, 'store change feed: tail read failed');
          return;
        }
        if (res.compacted > this.lastSeen) {
          this.fellBehind(res.compacted);
          continue;
        }
        if (res.rows.length === 0) return;
        this.dispatch(res.rows);
        if (res.rows.length < TAIL_BATCH) return;
        // A large backlog: continue on the next turn so the event loop is not held.
        setImmediate(() => this.poll());
        return;
      }
    } finally {
      this.polling = false;
    }
  }

  private dispatch(rows: LogRow[]): void {
    const last = (rows[rows.length - 1] as LogRow).id;
    this.lastSeen = last;
    const events = rows.map(rowToEvent);
    for (const w of this.watchers) {
      if (!w.live || w.closed) continue;
      const mine = events.filter((e) => e.revision > w.pos && e.kv.key.startsWith(w.prefix));
      w.pos = Math.max(w.pos, last);
      if (mine.length > 0) deliver(w, mine, this.logger);
    }
  }

  /** The log was compacted past rows this process never read (it was stalled): live watchers end. */
  private fellBehind(compacted: number): void {
    this.logger.warn({ lastSeen: this.lastSeen, compacted }, 'store change feed fell behind compaction');
    for (const w of this.watchers) {
      if (!w.live) continue;
      this.fail(w, new CompactedError(w.pos, compacted));
    }
    this.lastSeen = compacted;
  }

  /** Replay rows after the watcher's start from the table until it reaches the tail, then go live. */
  private catchUp(w: FeedWatcher): void {
    let first = true;
    const step = (): void => {
      if (w.closed || this.closed) return;
      const target = this.lastSeen;
      // Always read once, even when already caught up, to check the start against compaction.
      if (w.pos >= target && !first) {
        w.live = true;
        return;
      }
      first = false;
      const upTo = Math.min(target, w.pos + REPLAY_SPAN);
      let res: { compacted: number; rows: LogRow[] };
      try {
        res = this.readReplay(w.pos, upTo, w.prefix, w.upper);
      } catch (err) {
        this.logger.warn({ err }, 'store watch replay read failed; retrying');
        setTimeout(step, 5);
        return;
      }
      if (w.pos < res.compacted) {
        this.fail(w, new CompactedError(w.pos, res.compacted));
        return;
      }
      const full = res.rows.length === REPLAY_BATCH;
      const next = full ? (res.rows[res.rows.length - 1] as LogRow).id : Math.max(w.pos, upTo);
      if (res.rows.length > 0) deliver(w, res.rows.map(rowToEvent), this.logger);
      w.pos = next;
      if (w.pos >= this.lastSeen) {
        // Caught up within this same turn: no tail dispatch can have happened in between.
        if (!w.closed) w.live = true;
        return;
      }
      setImmediate(step);
    };
    step();
  }

  private fail(w: FeedWatcher, err: Error): void {
    if (w.closed) return;
    w.closed = true;
    this.watchers.delete(w);
    try {
      w.handlers.onError(err);
    } catch (e) {
      this.logger.error({ err: e }, 'store watch onError handler threw');
    }
  }
}

function deliver(w: FeedWatcher, events: WatchEvent[], logger: Logger): void {
  if (w.closed) return;
  try {
    w.handlers.onEvents(events);
  } catch (err) {
    logger.error({ err }, 'store watch onEvents handler threw');
  }
}
