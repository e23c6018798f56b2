// Store benchmark: (1) raw write throughput of 3 processes × concurrent writers on one SQLite file;
// (2) cross-process watch latency (writer process → watcher in this process) at ~500 writes/s.
// usage: npm run bench -- store-write [--writes N] [--concurrency C] [--rate R] [--seconds S] (--help lists the flags)
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SqliteBackend } from '../packages/store/src/sqlite.ts';
import { spawnWriter } from '../packages/store/src/testing/spawn-writer.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { runBench, type Work } from './lib/workdir.ts';

const flags = benchFlags(
  'store-write',
  {
    writes: { type: 'int', default: 5000, usage: 'writes per process in the throughput phase' },
    concurrency: { type: 'int', default: 16, usage: 'concurrent writers per process in the throughput phase' },
    rate: { type: 'float', default: 500, usage: 'writes/s in total from the 3 writer processes in the latency phase' },
    seconds: { type: 'float', default: 5, usage: 'length of the latency phase in seconds' },
  },
  (f) => atLeast(f, 1, ['writes', 'concurrency']) ?? atLeast(f, 0, ['rate', 'seconds'], true),
);
const { writes, concurrency, rate, seconds } = flags;

async function throughput(work: Work): Promise<void> {
  const path = join(work.dir, 'throughput.db');
  new SqliteBackend({ path, compactIntervalMs: 0 }).close(); // create the schema before the race
  const procs = ['a', 'b', 'c'].map((id) => spawnWriter(path, id, writes, concurrency, 3));
  for (const p of procs) work.track(p.child);
  await Promise.all(procs.map((p) => p.ready));
  const t0 = performance.now();
  for (const p of procs) p.go();
  const exits = await Promise.all(procs.map((p) => p.exited));
  const ms = performance.now() - t0;
  const total = procs.reduce((n, p) => n + p.acks.length, 0);
  const errors = procs.reduce((n, p) => n + p.errors.length, 0);
  const commits = exits.reduce((n, e) => n + (e.done?.commits ?? 0), 0);
  const busy = exits.reduce((n, e) => n + (e.done?.busyRetries ?? 0), 0);
  console.log('== store write throughput (3 processes × %d concurrent writers, creates + updates with preconditions)', concurrency);
  console.log('writes: %d in %s ms  →  %s writes/s', total, ms.toFixed(0), ((total / ms) * 1000).toFixed(0));
  console.log('errors: %d   commits: %d (%s writes/commit)   busy retries: %d', errors, commits, (total / commits).toFixed(1), busy);
  for (const [i, e] of exits.entries()) {
    console.log('  process %s: %d writes in %s ms', 'abc'[i], procs[i]?.acks.length, e.done?.ms.toFixed(0));
  }
}

async function latency(work: Work): Promise<void> {
  const path = join(work.dir, 'latency.db');
  const watcher = new SqliteBackend({ path, compactIntervalMs: 0 });
  const lat: number[] = [];
  const wallNow = (): number => performance.timeOrigin + performance.now();
  const w = watcher.watch('/registry/bench/', await watcher.currentRevision(), {
    onEvents: (evs) => {
      const now = wallNow();
      for (const e of evs) {
        const v: unknown = JSON.parse(e.kv.value);
        if (typeof v === 'object' && v !== null && typeof (v as { t?: unknown }).t === 'number') lat.push(now - (v as { t: number }).t);
      }
    },
    onError: (err) => console.error('watch error', err),
  });
  const script = fileURLToPath(new URL('./store-rate-writer.ts', import.meta.url));
  const perProcess = rate / 3;
  const procs = ['a', 'b', 'c'].map((id) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, path, id, String(perProcess), String(seconds)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    work.track(child);
    const lines = createInterface({ input: child.stdout });
    let summary = '';
    const ready = new Promise<void>((r) => lines.once('line', () => r()));
    lines.on('line', (l) => {
      if (l.includes('"done"')) summary = l;
    });
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    return { child, ready, exited, summary: () => summary };
  });
  await Promise.all(procs.map((p) => p.ready));
  for (const p of procs) p.child.stdin.write('go\n');
  await Promise.all(procs.map((p) => p.exited));
  await new Promise((r) => setTimeout(r, 100));
  w.close();
  await watcher.close();
  lat.sort((a, b) => a - b);
  const q = (p: number): string => (lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? NaN).toFixed(2);
  console.log('== cross-process watch latency (3 writer processes, %d writes/s total, watcher in a 4th process)', rate);
  for (const p of procs) {
    const d: unknown = JSON.parse(p.summary() || '{}');
    const done = (d as { done?: { commitP50?: number; commitP99?: number; errors?: number } }).done;
    console.log('  writer: submit→committed ms p50 %s p99 %s, errors %d', done?.commitP50?.toFixed(2), done?.commitP99?.toFixed(2), done?.errors);
  }
  console.log('events: %d   submit→delivered ms: p50 %s  p90 %s  p99 %s  max %s', lat.length, q(0.5), q(0.9), q(0.99), q(1));
}

await runBench('store-write', async (work) => {
  await throughput(work);
  await latency(work);
});
