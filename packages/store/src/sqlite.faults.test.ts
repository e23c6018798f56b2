// SqliteBackend when its disk or files fail underneath it: what healthy() (the apiserver's `etcd` check)
// reports, what writes get, and that it recovers without a restart where that is safe.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountTmpfs } from '@kemu/base/testing/tmpfs';
import { waitFor } from '@kemu/base/testing/processes';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from './backend.ts';
import { SqliteBackend } from './sqlite.ts';

const dir = mkdtempSync(join(tmpdir(), 'kemu-store-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));


/** chattr +i/-i: an immutable file refuses writes even through descriptors opened before (needs root and ext4/xfs). */
function immutable(on: boolean, ...files: string[]): boolean {
  try {
    execFileSync('chattr', [on ? '+i' : '-i', ...files], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('SqliteBackend write probe', () => {
  it('commits when a health check asks and no write proved the store lately, taking no revision and sending no event', async () => {
    const b = new SqliteBackend({ path: join(dir, 'probe.db'), compactIntervalMs: 0, healthCheckTimeoutMs: 20 });
    try {
      const kv = await b.create('/registry/configmaps/default/a', '1');
      const events: number[] = [];
      const w = b.watch('/', kv.modRevision, { onEvents: (e) => events.push(...e.map((x) => x.revision)), onError: () => {} });
      const commits = b.writeStats.commits;
      await waitFor('a probe commit', async () => (await b.healthy()) && b.writeStats.commits >= commits + 2, 5000, 5);
      expect(b.writeStats.rows).toBe(1);
      expect(await b.currentRevision()).toBe(kv.modRevision);
      expect((await b.create('/registry/configmaps/default/b', '2')).modRevision).toBe(kv.modRevision + 1);
      await waitFor('the write event', () => events.length >= 1, 2000, 2);
      expect(events).toEqual([kv.modRevision + 1]);
      w.close();
    } finally {
      await b.close();
    }
  });
});

describe('SqliteBackend on a full disk', () => {
  it('fails writes and healthy() while the disk is full, and recovers once it has space (needs mount rights for a tmpfs)', async (ctx) => {
    // Mounted here, not at collection, so a run that filters this test out leaves no mount behind.
    const fs = mountTmpfs(4 * 1024 * 1024);
    if (!fs) return ctx.skip('no right to mount a tmpfs');
    ctx.onTestFinished(() => fs.unmount());
    const b = new SqliteBackend({ path: join(fs.dir, 'state.db'), compactIntervalMs: 0, healthCheckTimeoutMs: 100 });
    try {
      await b.create('/registry/configmaps/default/before', 'x');
      expect(await b.healthy()).toBe(true);
      fs.fill();
      const big = 'x'.repeat(256 * 1024);
      let failure: unknown;
      for (let i = 0; i < 100 && failure === undefined; i++) {
        await b.create(`/registry/configmaps/default/big-${i}`, big).catch((e: unknown) => (failure = e));
      }
      expect(String(failure)).toMatch(/database or disk is full/);
      expect(await b.healthy()).toBe(false);
      // Still full: every probe fails too, so readiness stays down.
      await new Promise((r) => setTimeout(r, 150));
      expect(await b.healthy()).toBe(false);
      expect((await b.get('/registry/configmaps/default/before'))?.value).toBe('x');

      fs.free();
      await waitFor('healthy again after space is freed', () => b.healthy(), 5000);
      const kv = await b.create('/registry/configmaps/default/after', big);
      expect(kv.modRevision).toBeGreaterThan(1);
    } finally {
      await b.close();
      fs.free();
    }
  });
});

describe('SqliteBackend whose file turns read-only', () => {
  it('fails writes with an I/O error and healthy() while the file is immutable, and recovers without reopening (needs chattr)', async (ctx) => {
    const path = join(dir, 'immutable.db');
    const b = new SqliteBackend({ path, compactIntervalMs: 0, healthCheckTimeoutMs: 100 });
    const files = [path, `${path}-wal`];
    try {
      await b.create('/registry/configmaps/default/a', '1');
      if (!immutable(true, ...files)) return ctx.skip('chattr +i is not permitted here');
      await expect(b.create('/registry/configmaps/default/b', '2')).rejects.toThrow(/disk I\/O error/);
      expect(await b.healthy()).toBe(false);
      await new Promise((r) => setTimeout(r, 60));
      expect(await b.healthy()).toBe(false);
      immutable(false, ...files);
      await waitFor('healthy again once writable', () => b.healthy(), 5000);
      expect((await b.create('/registry/configmaps/default/b', '2')).value).toBe('2');
    } finally {
      immutable(false, ...files);
      await b.close();
    }
  });
});

describe('SqliteBackend whose files are deleted or replaced while open', () => {
  it('refuses writes with StoreUnavailableError in every process on the file once its WAL is deleted, and reports unhealthy', async () => {
    const path = join(dir, 'wal-deleted.db');
    const a = new SqliteBackend({ path, compactIntervalMs: 0, healthCheckTimeoutMs: 100 });
    const c = new SqliteBackend({ path, compactIntervalMs: 0, healthCheckTimeoutMs: 100 });
    try {
      await a.create('/registry/configmaps/default/one', '1');
      await c.create('/registry/configmaps/default/two', '2');
      expect(await a.healthy()).toBe(true);
      rmSync(`${path}-wal`);
      const err = await a.create('/registry/configmaps/default/three', '3').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(String(err)).toMatch(/wal-deleted\.db-wal was deleted while the store had it open/);
      expect(await a.healthy()).toBe(false);
      expect(await c.healthy()).toBe(false);
      await expect(c.update('/registry/configmaps/default/two', '2b')).rejects.toBeInstanceOf(StoreUnavailableError);
      // Reads still answer; no later check clears the fence.
      expect((await c.get('/registry/configmaps/default/two'))?.value).toBe('2');
      await new Promise((r) => setTimeout(r, 120));
      expect(await a.healthy()).toBe(false);
    } finally {
      await a.close();
      await c.close();
    }
  });

  it('refuses the write whose commit finds the database file replaced, before acknowledging it', async () => {
    const path = join(dir, 'replaced.db');
    const b = new SqliteBackend({ path, compactIntervalMs: 0 });
    try {
      await b.create('/registry/configmaps/default/one', '1');
      writeFileSync(join(dir, 'other.db'), '');
      renameSync(join(dir, 'other.db'), path);
      const err = await b.create('/registry/configmaps/default/two', '2').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(String(err)).toMatch(/replaced\.db was replaced while the store had it open \(inode \d+:\d+, now \d+:\d+\)/);
      expect(await b.healthy()).toBe(false);
    } finally {
      await b.close();
    }
  });
});
