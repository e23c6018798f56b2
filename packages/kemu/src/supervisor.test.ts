import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Supervisor } from './supervisor.ts';
import { pidAlive } from './state.ts';

const dirs: string[] = [];
const sups: Supervisor[] = [];

function make(): Supervisor {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-sup-'));
  dirs.push(dir);
  const s = new Supervisor({ logDir: dir, graceMs: 2000, onChange: () => undefined, say: () => undefined, initialBackoffMs: 50 });
  sups.push(s);
  return s;
}

function node(name: string, script: string) {
  return { name, kind: 'worker' as const, command: process.execPath, args: ['-e', script], address: '127.0.0.1', ports: {} };
}

async function until<T>(what: string, fn: () => T | null | undefined | false, ms = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const rec = (s: Supervisor, n: string) => s.records().find((r) => r.name === n)!;

afterEach(async () => {
  for (const s of sups.splice(0)) await s.shutdown([]);
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('supervisor', () => {
  it('restarts a process that exits non-zero and logs its output', async () => {
    const s = make();
    s.add(node('flaky', 'console.log("hello from flaky"); setTimeout(() => process.exit(3), 50)'));
    s.start('flaky');
    await until('two restarts', () => rec(s, 'flaky').restarts >= 2);
    expect(rec(s, 'flaky').lastExit).toBe('exit code 3');
    expect(fs.readFileSync(s.logFile('flaky'), 'utf8')).toContain('hello from flaky');
  });

  it('restarts a process killed by a signal it did not get from kemu', async () => {
    const s = make();
    s.add(node('victim', 'setInterval(() => {}, 1000)'));
    s.start('victim');
    const pid = await until('pid', () => rec(s, 'victim').pid);
    process.kill(pid, 'SIGKILL');
    await until('a new pid', () => rec(s, 'victim').pid !== pid && rec(s, 'victim').pid);
    expect(rec(s, 'victim').restarts).toBe(1);
  });

  it('leaves a process it stopped or killed down until started again', async () => {
    const s = make();
    s.add(node('a', 'setInterval(() => {}, 1000)'));
    s.add(node('b', 'setInterval(() => {}, 1000)'));
    s.start('a');
    s.start('b');
    const pa = await until('pid a', () => rec(s, 'a').pid);
    await until('pid b', () => rec(s, 'b').pid);
    await s.stop('a');
    await s.kill('b');
    expect(pidAlive(pa)).toBe(false);
    // A failing neighbour restarted three times shows several back-off periods have passed: nothing may come back.
    s.add(node('clock', 'process.exit(1)'));
    s.start('clock');
    await until('three restarts of the neighbour', () => rec(s, 'clock').restarts >= 3);
    expect(rec(s, 'a')).toMatchObject({ state: 'stopped', pid: null, restarts: 0 });
    expect(rec(s, 'b')).toMatchObject({ state: 'killed', pid: null, restarts: 0 });
    s.start('a');
    await until('a running again', () => rec(s, 'a').pid);
  });

  it('does not restart a clean exit', async () => {
    const s = make();
    s.add(node('done', 'process.exit(0)'));
    s.start('done');
    await until('exited', () => rec(s, 'done').state === 'exited');
    expect(rec(s, 'done').restarts).toBe(0);
  });

  it('SIGKILLs a process that ignores SIGTERM after the grace period', async () => {
    const s = make();
    s.add(node('stubborn', 'process.on("SIGTERM", () => {}); console.log("handler " + "installed"); setInterval(() => {}, 1000)'));
    s.start('stubborn');
    const pid = await until('pid', () => rec(s, 'stubborn').pid);
    // A SIGTERM before the handler exists would simply end it. (The log's first line holds the command itself,
    // hence the split string.)
    await until('its SIGTERM handler installed', () => fs.readFileSync(s.logFile('stubborn'), 'utf8').includes('handler installed'));
    const t0 = Date.now();
    await s.stop('stubborn', 300);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(pidAlive(pid)).toBe(false);
    expect(rec(s, 'stubborn').lastExit).toBe('signal SIGKILL');
  });

  it('pause and unpause send SIGSTOP/SIGCONT', async () => {
    const s = make();
    s.add(node('p', 'setInterval(() => {}, 1000)'));
    s.start('p');
    const pid = await until('pid', () => rec(s, 'p').pid);
    s.pause('p');
    await until('stopped (T)', () => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'T');
    s.unpause('p');
    await until('not stopped', () => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'T');
    expect(rec(s, 'p').state).toBe('running');
  });
});
