// The hostile-client soak of bench/hostile-soak-bench.ts, small and with short deadlines from flags: the
// normal write load's p99 stays within 2× of its own baseline (with a floor, for a busy machine), no
// normal write fails, the replica's RSS stays bounded, and the server closes every kind of hostile client.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runSoak } from '../../bench/lib/hostile-soak.ts';
import { startApiserver, type ApiserverProc } from '../support/apiserver.ts';

const MiB = 1024 * 1024;
let dir: string | undefined;
let api: ApiserverProc | undefined;

afterAll(async () => {
  await api?.proc.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('keeps a normal write load on time and memory bounded beside hostile clients', async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kemu-soak-'));
  api = await startApiserver('apiserver-soak', path.join(dir, 'state.db'), {
    extra: ['--read-header-timeout=1s', '--read-body-timeout=1s', '--request-timeout=5s', `--max-watch-buffer-bytes=${MiB / 4}`, '--watch-unresponsive-timeout=1s', '--default-watch-cache-size=100'],
  });
  const r = await runSoak({
    url: api.url,
    port: api.port,
    pid: api.proc.child.pid ?? 0,
    phaseMs: 6_000,
    rounds: 2,
    writers: 4,
    watchers: 40,
    halfBodies: 30,
    silent: 100,
    updates: 160,
    updateBytes: 200_000,
    settleMs: 1_000,
  });
  expect(r.baseline.failed).toBe(0);
  expect(r.hostile.failed).toBe(0);
  expect(r.hostile.count).toBeGreaterThan(0);
  expect(r.hostile.p99).toBeLessThanOrEqual(2 * Math.max(r.baseline.p99, 25));
  expect(r.terminatedWatchers).toBeGreaterThanOrEqual(40);
  expect(r.halfBodies504).toBeGreaterThanOrEqual(30);
  expect(r.closedByServer.silent).toBeGreaterThanOrEqual(100);
  expect(r.rss.hostilePeak - r.rss.baselinePeak).toBeLessThan(200 * MiB);
  expect(r.rss.afterLeave - r.rss.baselinePeak).toBeLessThan(200 * MiB);
}, 90_000);
