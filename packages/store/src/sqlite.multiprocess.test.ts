// Three processes writing one SQLite file at once: no caller ever sees "database is locked", every
// acknowledged write is in the log, revisions are unique and gap-free, a watcher in another process sees
// every write in order, and a writer killed with SIGKILL loses none of the writes it acknowledged.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { WatchEvent } from './backend.ts';
import { SqliteBackend } from './sqlite.ts';
import { spawnWriter, type Ack, type WriterProcess } from './testing/spawn-writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'kemu-store-mp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let children: WriterProcess[] = [];
afterEach(() => {
  for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  children = [];
});

function readLog(path: string): { rows: Array<{ id: number; name: string; value: string }>; integrity: unknown } {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT id, name, value FROM log ORDER BY id').all() as Array<{ id: number; name: string; value: string }>;
    const integrity = db.pragma('integrity_check', { simple: true });
    return { rows, integrity };
  } finally {
    db.close();
  }
}

function expectAcksInLog(acks: Ack[], byId: Map<number, { name: string; value: string }>): void {
  for (const [rev, key, value] of acks) {
    const row = byId.get(rev);
    expect(row, `ack at revision ${rev}`).toEqual({ name: key, value });
  }
}

describe('SqliteBackend across processes', () => {
  it('3 writer processes × 2,000 writes: no errors, gap-free revisions, a watcher sees all in order', async () => {
    const path = join(dir, 'concurrent.db');
    const parent = new SqliteBackend({ path, compactIntervalMs: 0 });
    const events: WatchEvent[] = [];
    let watchErr: Error | undefined;
    // A second watcher starts mid-load from a past revision: it must replay from the table and switch
    // to live while the other processes keep writing, without gap or duplicate.
    const late: WatchEvent[] = [];
    let lateW: { close(): void } | undefined;
    const w = parent.watch('/registry/mp/', 0, {
      onEvents: (e) => {
        events.push(...e);
        if (!lateW && events.length >= 1500) {
          lateW = parent.watch('/registry/mp/', 1000, { onEvents: (le) => late.push(...le), onError: (le) => (watchErr = le) });
        }
      },
      onError: (e) => (watchErr = e),
    });
    try {
      children = ['a', 'b', 'c'].map((id) => spawnWriter(path, id, 2000, 8));
      await Promise.all(children.map((c) => c.ready));
      for (const c of children) c.go();
      const exits = await Promise.all(children.map((c) => c.exited));
      for (const [i, e] of exits.entries()) {
        expect(children[i]?.errors).toEqual([]);
        expect(e.code).toBe(0);
        expect(e.done?.errors).toBe(0);
      }
      const acks = children.flatMap((c) => c.acks);
      expect(acks).toHaveLength(6000);
      const revs = acks.map((a) => a[0]).sort((x, y) => x - y);
      expect(revs).toEqual(Array.from({ length: 6000 }, (_, i) => i + 1));

      const { rows, integrity } = readLog(path);
      expect(integrity).toBe('ok');
      expect(rows.map((r) => r.id)).toEqual(revs);
      expectAcksInLog(acks, new Map(rows.map((r) => [r.id, { name: r.name, value: r.value }])));

      const deadline = Date.now() + 10_000;
      while ((events.length < 6000 || late.length < 5000) && !watchErr && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(watchErr).toBeUndefined();
      expect(events.map((e) => e.revision)).toEqual(revs);
      expect(late.map((e) => e.revision)).toEqual(revs.slice(1000));
      const ackByRev = new Map(acks.map((a) => [a[0], a]));
      for (const e of events) expect([e.revision, e.kv.key, e.kv.value]).toEqual(ackByRev.get(e.revision));
    } finally {
      w.close();
      lateW?.close();
      await parent.close();
    }
  });

  it('a writer killed with SIGKILL mid-load loses none of the writes it acknowledged', async () => {
    const path = join(dir, 'killed.db');
    children = [spawnWriter(path, 'victim', 1_000_000, 8), spawnWriter(path, 'b', 1500, 8), spawnWriter(path, 'c', 1500, 8)];
    await Promise.all(children.map((c) => c.ready));
    const victim = children[0] as WriterProcess;
    const killed = new Promise<void>((resolve) => {
      victim.onAck = () => {
        if (victim.acks.length === 700) {
          victim.child.kill('SIGKILL');
          resolve();
        }
      };
    });
    for (const c of children) c.go();
    await killed;
    const exits = await Promise.all(children.map((c) => c.exited));
    expect(exits[0]?.signal).toBe('SIGKILL');
    expect(exits[1]?.code).toBe(0);
    expect(exits[2]?.code).toBe(0);
    for (const c of children) expect(c.errors).toEqual([]);

    // Reopening after the crash recovers the WAL; every acknowledged write of every process is there.
    const reopened = new SqliteBackend({ path, compactIntervalMs: 0 });
    try {
      const head = await reopened.currentRevision();
      const { rows, integrity } = readLog(path);
      expect(integrity).toBe('ok');
      expect(rows.map((r) => r.id)).toEqual(Array.from({ length: head }, (_, i) => i + 1));
      expect(victim.acks.length).toBeGreaterThanOrEqual(700);
      const byId = new Map(rows.map((r) => [r.id, { name: r.name, value: r.value }]));
      for (const c of children) expectAcksInLog(c.acks, byId);
      // And the store keeps working for writes after the crash.
      const kv = await reopened.create('/registry/mp/after-crash', 'x');
      expect(kv.modRevision).toBe(head + 1);
    } finally {
      await reopened.close();
    }
  });

  it('compaction in one process while three others write: no errors, watchers past it unaffected, state intact', async () => {
    const path = join(dir, 'compacting.db');
    const parent = new SqliteBackend({ path, compactIntervalMs: 0 });
    const events: WatchEvent[] = [];
    let watchErr: Error | undefined;
    const w = parent.watch('/registry/mp/', 0, { onEvents: (e) => events.push(...e), onError: (e) => (watchErr = e) });
    try {
      children = ['a', 'b', 'c'].map((id) => spawnWriter(path, id, 1500, 8, 5));
      await Promise.all(children.map((c) => c.ready));
      for (const c of children) c.go();
      let running = true;
      const exits = Promise.all(children.map((c) => c.exited)).finally(() => (running = false));
      let compactions = 0;
      while (running) {
        // Compact up to what this process's watcher has already received, minus a margin.
        const seen = events.length > 0 ? (events[events.length - 1] as WatchEvent).revision : 0;
        if (seen > 300) {
          await parent.compact(seen - 200);
          compactions++;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      for (const [i, e] of (await exits).entries()) {
        expect(children[i]?.errors).toEqual([]);
        expect(e.code).toBe(0);
      }
      expect(compactions).toBeGreaterThan(0);
      const acks = children.flatMap((c) => c.acks);
      expect(acks).toHaveLength(4500);
      const head = await parent.currentRevision();
      expect(head).toBe(4500);
      const deadline = Date.now() + 10_000;
      while (events.length < 4500 && !watchErr && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(watchErr).toBeUndefined();
      expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 4500 }, (_, i) => i + 1));

      const lastByKey = new Map<string, Ack>();
      for (const a of acks.sort((x, y) => x[0] - y[0])) lastByKey.set(a[1], a);
      const list = await parent.list('/registry/mp/');
      expect(list.items.map((kv) => [kv.modRevision, kv.key, kv.value])).toEqual(
        [...lastByKey.values()].sort((x, y) => (x[1] < y[1] ? -1 : 1)),
      );
      expect(await parent.compactRevision()).toBeGreaterThan(0);
      await parent.compact(head);
      const { rows, integrity } = readLog(path);
      expect(integrity).toBe('ok');
      // Only the current row of each key is left.
      expect(rows).toHaveLength(lastByKey.size);
    } finally {
      w.close();
      await parent.close();
    }
  });
});
