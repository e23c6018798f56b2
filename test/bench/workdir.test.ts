// bench/lib/workdir.ts and bench/lib/flags.ts as a benchmark's user sees them: exit codes, the usage on a
// bad flag, and no process or directory left behind on the end, a failure or SIGTERM.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';

const BENCH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/hold-bench.ts');
const TSX = { NODE_OPTIONS: '--import tsx' };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts the fixture and waits for the line naming its work dir and child pid. */
async function start(...args: string[]): Promise<{ p: Proc; dir: string; pid: number }> {
  const p = startProcess('hold-bench', BENCH, args, TSX);
  const line = await waitFor('the work dir and child pid', () => /^\{"dir".*\}$/m.exec(p.output())?.[0], 30_000);
  const { dir, pid } = JSON.parse(line) as { dir: string; pid: number };
  return { p, dir, pid };
}

async function expectCleanedUp(dir: string, pid: number): Promise<void> {
  expect(existsSync(dir)).toBe(false);
  await waitFor(`child ${pid} gone`, () => !alive(pid), 10_000);
}

describe('runBench', () => {
  it('on SIGTERM kills the children, removes the dir and exits 143', async () => {
    const { p, dir, pid } = await start();
    expect(existsSync(path.join(dir, 'state'))).toBe(true);
    expect(alive(pid)).toBe(true);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(143);
    await expectCleanedUp(dir, pid);
  });

  it('on a failure prints it, cleans up and exits 1; on the end cleans up and exits 0', async () => {
    const failed = await start('--fail');
    expect(await failed.p.exited).toBe(1);
    expect(failed.p.output()).toContain('hold: Error: boom');
    await expectCleanedUp(failed.dir, failed.pid);
    const ended = await start('--seconds=0.1');
    expect(await ended.p.exited).toBe(0);
    await expectCleanedUp(ended.dir, ended.pid);
  });
});

describe('benchFlags', () => {
  it('exits 2 with the error and the usage on a bad flag, value or argument', async () => {
    const cases: [string[], string][] = [
      [['--nope'], 'Error: unknown flag: --nope'],
      [['--seconds', 'x'], 'Error: invalid argument "x" for "--seconds" flag: strconv.ParseFloat: parsing "x": invalid syntax'],
      [['--seconds=0'], 'Error: invalid argument "0" for "--seconds" flag: must be greater than 0'],
      [['stray'], 'Error: unknown command "stray" for "npm run bench -- hold"'],
    ];
    const runs = cases.map(([args]) => startProcess('hold-bench', BENCH, args, TSX));
    for (const [i, p] of runs.entries()) {
      expect(await p.exited).toBe(2);
      expect(p.output()).toContain(`${cases[i]?.[1]}\nUsage:\n  npm run bench -- hold [flags]\n\nFlags:\n      --fail\n`);
    }
  });
});
