// Reads: get, count and paged prefix lists, each inside one read transaction (one WAL snapshot).
//
// A list at a past revision R (a continue page) is the union of
//   A) keys whose current kv entry is a live row with id <= R — unchanged since R, so current = at R;
//   B) keys written after R: the first log row after R links (prev_revision) to the key's row that was
//      current at R; if that row is live it is the key's state at R.
// Both are exact while R >= compact revision: compaction keeps every row that is current at or after
// it, and the prev_revision target of any row newer than the compact revision.
import type { Database, Statement } from 'better-sqlite3';
import { CompactedError, FutureRevisionError, type KeyValue, type ListOptions, type ListResult } from '../backend.ts';
import { compareKeys, prefixEnd } from '../keys.ts';
import { parseKvRow, scalar } from './schema.ts';

const NO_UPPER = '\u{10ffff}\u{10ffff}\u{10ffff}\u{10ffff}';

export class Reader {
  private readonly getStmt: Statement;
  private readonly countStmt: Statement;
  private readonly listCurrent: Statement;
  private readonly listCurrentAll: Statement;
  private readonly countAt: Statement;
  private readonly changedSince: Statement;
  private readonly headStmt: Statement;
  private readonly compactStmt: Statement;
  private readonly pingStmt: Statement;
  private readonly listTx: (prefix: string, opts: ListOptions) => ListResult;

  constructor(db: Database) {
    this.getStmt = db.prepare(
      'SELECT k.name, k.id, l.created, l.create_revision, l.value FROM kv k JOIN log l ON l.id = k.id WHERE k.name = ? AND k.deleted = 0',
    );
    this.countStmt = db.prepare('SELECT COUNT(*) FROM kv WHERE name >= ? AND name < ? AND deleted = 0').pluck();
    const listSql =
      'SELECT k.name, k.id, l.created, l.create_revision, l.value FROM kv k JOIN log l ON l.id = k.id ' +
      'WHERE k.name >= ? AND k.name < ? AND k.id <= ? AND k.deleted = 0 ORDER BY k.name';
    this.listCurrent = db.prepare(`${listSql} LIMIT ?`);
    this.listCurrentAll = db.prepare(listSql);
    this.countAt = db.prepare('SELECT COUNT(*) FROM kv WHERE name >= ? AND name < ? AND id <= ? AND deleted = 0').pluck();
    this.changedSince = db.prepare(
      'SELECT p.name, p.id, p.created, p.create_revision, p.value FROM log p WHERE p.id IN (' +
        'SELECT l.prev_revision FROM log l WHERE l.id IN (' +
        'SELECT MIN(id) FROM log WHERE id > ? AND name >= ? AND name < ? GROUP BY name)) AND p.deleted = 0',
    );
    this.headStmt = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'log'").pluck();
    this.compactStmt = db.prepare("SELECT value FROM meta WHERE name = 'compact_revision'").pluck();
    this.pingStmt = db.prepare('SELECT 1').pluck();
    this.listTx = db.transaction((prefix: string, opts: ListOptions) => this.listIn(prefix, opts));
  }

  /** A trivial query: the file is open and readable. */
  ping(): boolean {
    return scalar(this.pingStmt.get()) === 1;
  }

  get(key: string): KeyValue | undefined {
    const row: unknown = this.getStmt.get(key);
    return row === undefined ? undefined : parseKvRow(row);
  }

  count(prefix: string): number {
    return scalar(this.countStmt.get(prefix, prefixEnd(prefix) ?? NO_UPPER));
  }

  currentRevision(): number {
    return scalar(this.headStmt.get());
  }

  compactRevision(): number {
    return scalar(this.compactStmt.get());
  }

  list(prefix: string, opts: ListOptions = {}): ListResult {
    return this.listTx(prefix, opts);
  }

  private listIn(prefix: string, opts: ListOptions): ListResult {
    const head = this.currentRevision();
    const revision = opts.revision && opts.revision > 0 ? opts.revision : head;
    if (revision > head) throw new FutureRevisionError(revision, head);
    const compacted = this.compactRevision();
    if (revision < compacted) throw new CompactedError(revision, compacted);

    const upper = prefixEnd(prefix) ?? NO_UPPER;
    // Keys never contain NUL, so after + '\0' is the smallest key strictly after `after`.
    const after = opts.startAfter;
    const from = after !== undefined && compareKeys(after, prefix) >= 0 ? `${after}\u0000` : prefix;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;

    const unchanged = (limit ? this.listCurrent.all(from, upper, revision, limit + 1) : this.listCurrentAll.all(from, upper, revision)).map(
      parseKvRow,
    );
    const changed = revision < head ? this.changedSince.all(revision, from, upper).map(parseKvRow) : [];
    let merged = unchanged;
    if (changed.length > 0) {
      merged = unchanged.concat(changed).sort((a, b) => compareKeys(a.key, b.key));
    }
    if (!limit || merged.length <= limit) {
      return { items: merged, revision, more: false, remaining: 0 };
    }
    const items = merged.slice(0, limit);
    const lastKey = (items[items.length - 1] as KeyValue).key;
    const rest = `${lastKey}\u0000`;
    const remaining =
      scalar(this.countAt.get(rest, upper, revision)) + changed.filter((kv) => compareKeys(kv.key, lastKey) > 0).length;
    return { items, revision, more: true, remaining };
  }
}
