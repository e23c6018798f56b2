import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBackendConformance } from './conformance.ts';
import { SqliteBackend } from './sqlite.ts';

const dir = mkdtempSync(join(tmpdir(), 'kemu-store-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

runBackendConformance('SqliteBackend', () => new SqliteBackend({ path: join(dir, `t${n++}.db`), compactIntervalMs: 0 }));

describe('SqliteBackend specifics', () => {
  it('compacts large histories in small batches and keeps every current value', async () => {
    const b = new SqliteBackend({ path: join(dir, `big${n++}.db`), compactIntervalMs: 0 });
    try {
      const keys = Array.from({ length: 200 }, (_, i) => `/registry/pods/default/p${i}`);
      await Promise.all(keys.map((k) => b.create(k, '0')));
      for (let round = 1; round <= 10; round++) await Promise.all(keys.map((k) => b.update(k, String(round))));
      await Promise.all(keys.slice(0, 50).map((k) => b.delete(k)));
      const head = await b.currentRevision();
      expect(head).toBe(200 * 11 + 50);
      await b.compact(head);
      expect(await b.compactRevision()).toBe(head);
      const list = await b.list('/registry/pods/');
      expect(list.items).toHaveLength(150);
      expect(new Set(list.items.map((i) => i.value))).toEqual(new Set(['10']));
      expect(await b.count('/registry/pods/')).toBe(150);
    } finally {
      await b.close();
    }
  });

  it('a second backend on the same file (another connection pair) sees writes and watch events', async () => {
    const path = join(dir, `shared${n++}.db`);
    const a = new SqliteBackend({ path, compactIntervalMs: 0 });
    const c = new SqliteBackend({ path, compactIntervalMs: 0 });
    try {
      const got: number[] = [];
      const w = c.watch('/registry/', await c.currentRevision(), { onEvents: (e) => got.push(...e.map((x) => x.revision)), onError: () => {} });
      const kv = await a.create('/registry/x', '1');
      expect(await c.get('/registry/x')).toEqual(kv);
      const deadline = Date.now() + 2000;
      while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      expect(got).toEqual([kv.modRevision]);
      w.close();
    } finally {
      await a.close();
      await c.close();
    }
  });
});

describe('SqliteBackend timed compaction', () => {
  it('compacts on its timer past the retention window, keeping compactMinRevisions', async () => {
    const b = new SqliteBackend({
      path: join(dir, `timed${n++}.db`),
      compactIntervalMs: 10,
      compactRetentionMs: 1,
      compactMinRevisions: 5,
    });
    try {
      await b.create('/registry/t/a', '0');
      for (let i = 1; i <= 30; i++) await b.update('/registry/t/a', String(i));
      const head = await b.currentRevision();
      const deadline = Date.now() + 5000;
      // Past revision 1, so that a read at 1 is below it (a read at the compacted revision itself is still served);
      // on a busy machine an early tick may compact to 1 alone while the updates are still being written.
      while ((await b.compactRevision()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const compacted = await b.compactRevision();
      expect(compacted).toBeGreaterThan(1);
      expect(compacted).toBeLessThanOrEqual(head - 5);
      expect((await b.get('/registry/t/a'))?.value).toBe('30');
      await expect(b.list('/registry/t/', { revision: 1 })).rejects.toThrow(/compacted/);
    } finally {
      await b.close();
    }
  });

  it('rejects writes after close instead of throwing synchronously', async () => {
    const b = new SqliteBackend({ path: join(dir, `closed${n++}.db`), compactIntervalMs: 0 });
    await b.close();
    await expect(b.create('/registry/x', '1')).rejects.toThrow(/closed/);
    expect(await b.healthy()).toBe(false);
  });
});
