// The SQLite schema and the narrowing of its rows. Only SQL and row shapes live here.
//
// log  — the append-only history, as in kine: one row per write, its id IS the revision. AUTOINCREMENT
//        so an id is never reused, even after compaction deletes the newest rows (e.g. a tombstone).
//        created=1 rows store create_revision 0: their create revision is their own id, unknown
//        before the insert. prev_revision links every row to the key's previous row (0 if none), which
//        is what compaction follows and what reconstructs a past state.
// kv   — current state: for each key, the id of its newest log row (deleted=1 while that is a
//        tombstone not yet compacted). A small WITHOUT ROWID index so get/list by prefix are range
//        scans; values are read from log by primary key, so a write stores its value once.
// meta — compact_revision, shared by every process that opens the file; health_probe, a counter the
//        health probe (sqlite/health.ts) rewrites to prove the file takes writes, without using a revision.
import type { KeyValue, WatchEvent } from '../backend.ts';

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT NOT NULL,
  old_value TEXT
);
CREATE TABLE IF NOT EXISTS kv (
  name TEXT PRIMARY KEY,
  id INTEGER NOT NULL,
  deleted INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (name, value) VALUES ('compact_revision', 0), ('schema_version', 1);
`;

export const LOG_COLUMNS = 'id, name, created, deleted, create_revision, prev_revision, value, old_value';

/** One row of the log table. */
export interface LogRow {
  id: number;
  name: string;
  created: boolean;
  deleted: boolean;
  createRevision: number;
  prevRevision: number;
  value: string;
  oldValue: string | null;
}

export class RowShapeError extends Error {
  constructor(what: string) {
    super(`unexpected row shape from SQLite: ${what}`);
    this.name = 'RowShapeError';
  }
}

function field(row: unknown, name: string): unknown {
  if (typeof row !== 'object' || row === null) throw new RowShapeError(`not an object (${typeof row})`);
  return (row as Record<string, unknown>)[name];
}

export function int(row: unknown, name: string): number {
  const v = field(row, name);
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  throw new RowShapeError(`${name} is ${typeof v}`);
}

export function str(row: unknown, name: string): string {
  const v = field(row, name);
  if (typeof v === 'string') return v;
  throw new RowShapeError(`${name} is ${typeof v}`);
}

function optStr(row: unknown, name: string): string | null {
  const v = field(row, name);
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  throw new RowShapeError(`${name} is ${typeof v}`);
}

export function parseLogRow(row: unknown): LogRow {
  return {
    id: int(row, 'id'),
    name: str(row, 'name'),
    created: int(row, 'created') !== 0,
    deleted: int(row, 'deleted') !== 0,
    createRevision: int(row, 'create_revision'),
    prevRevision: int(row, 'prev_revision'),
    value: str(row, 'value'),
    oldValue: optStr(row, 'old_value'),
  };
}

/** A row of the (name, id, created, create_revision, value) shape the read queries return. */
export function parseKvRow(row: unknown): KeyValue {
  const id = int(row, 'id');
  return {
    key: str(row, 'name'),
    value: str(row, 'value'),
    modRevision: id,
    createRevision: int(row, 'created') !== 0 ? id : int(row, 'create_revision'),
  };
}

/** Single-column results (COUNT, MAX, a pragma): a number, 0 when there is no row or NULL. */
export function scalar(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  throw new RowShapeError(`scalar is ${typeof v}`);
}

export function rowToEvent(r: LogRow): WatchEvent {
  const createRevision = r.created ? r.id : r.createRevision;
  const kv: KeyValue = { key: r.name, value: r.value, modRevision: r.id, createRevision };
  const type = r.deleted ? 'delete' : r.created ? 'create' : 'update';
  const ev: WatchEvent = { type, kv, revision: r.id };
  if (type !== 'create' && r.oldValue !== null) {
    ev.prevKv = { key: r.name, value: r.oldValue, modRevision: r.prevRevision, createRevision };
  }
  return ev;
}

/** SQLite refused a lock right now (another connection holds it): retry later, never surface it. */
export function isBusy(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}
