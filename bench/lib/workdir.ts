// Bench helper: the one way a benchmark gets its scratch directory and cleans up. runBench runs the
// benchmark; on its end, its failure (thrown, or a rejection nobody awaited), SIGINT or SIGTERM alike it
// runs the benchmark's own teardowns, kills every process still running that was started through
// startProcess (by pid, killAll), removes the directory, and exits 0, 1 (it failed), 130 or 143. A second
// signal during the cleanup exits at once.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { killAll } from '@kemu/base/testing/processes';

export interface Work {
  /** A fresh temp directory for this run, made on first use and removed at the end. */
  readonly dir: string;
  /**
   * A teardown for what killAll does not cover (children spawned otherwise, helpers' own dirs and
   * supervisors), run at cleanup newest first; the function returned runs it now instead, once.
   */
  defer(fn: () => unknown): () => Promise<void>;
  /** A child spawned without startProcess: SIGKILLed at cleanup if it is still running. */
  track(child: ChildProcess): void;
}

export async function runBench(name: string, main: (work: Work) => Promise<void>): Promise<never> {
  let dir: string | undefined;
  const teardowns = new Set<() => Promise<void>>();
  const work: Work = {
    get dir() {
      return (dir ??= mkdtempSync(path.join(tmpdir(), `kemu-bench-${name}-`)));
    },
    defer(fn) {
      const once = async (): Promise<void> => {
        if (teardowns.delete(once)) await fn();
      };
      teardowns.add(once);
      return once;
    },
    track: (child) => void work.defer(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')),
  };
  let cleaning: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaning ??= (async () => {
      // The benchmark's teardowns first (a lab's supervisor stops its own components), then killAll for the
      // rest. After a signal the benchmark runs on meanwhile: what it registers before the last one ends runs too.
      for (let fn = [...teardowns].pop(); fn; fn = [...teardowns].pop()) {
        try {
          await fn();
        } catch (e) {
          console.error(`${name}: cleanup: ${String(e)}`);
        }
      }
      await killAll();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    })());
  let signalled = false;
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const)
    process.on(sig, () => {
      if (signalled) process.exit(code);
      signalled = true;
      void cleanup().then(() => process.exit(code));
    });
  const report = (e: unknown): void => console.error(`${name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  // A rejection nobody awaited also ends the run through the cleanup; once cleaning, requests failing
  // because their servers were just killed are expected and not reported.
  const crash = (e: unknown): void => {
    if (cleaning) return;
    report(e);
    void cleanup().then(() => process.exit(1));
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  let code = 0;
  try {
    await main(work);
  } catch (e) {
    code = 1;
    report(e);
  }
  await cleanup();
  process.exit(code);
}
