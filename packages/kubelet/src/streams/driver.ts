// Runs an emulated shell's steps (shell/interpreter.ts) in real time for an exec or attach session: what it
// writes goes out at once, its `sleep`s and network exchanges are waited for, and one that runs on forever (a server, `sleep
// infinity`) waits until the session is cancelled.
import type { ShellStep } from '../shell/interpreter.ts';

export type Write = (stream: 'stdout' | 'stderr', text: string) => void;

export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    // setTimeout's ceiling is 2^31-1 ms; Infinity waits for the abort alone.
    const timer = Number.isFinite(ms) ? setTimeout(done, Math.min(ms, 2 ** 31 - 1)) : undefined;
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Resolves when `p` settles or the session is cancelled, leaving no listener behind. */
export function until(p: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    p.then(done, done);
  });
}

/** The shortest time between two network exchanges of one shell (at most 200 requests a second). */
export const MIN_EXCHANGE_MS = 5;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Waits for one network exchange of a shell whose previous one ended at `last` (ms): no sooner than
 * MIN_EXCHANGE_MS after it, and then lets the event loop run, so a loop of requests never holds the kubelet.
 * Returns when it ended.
 */
export async function exchange(p: Promise<void>, last: number, signal: AbortSignal, now: () => number = Date.now): Promise<number> {
  const early = last + MIN_EXCHANGE_MS - now();
  if (early > 0) await pause(early, signal);
  await until(p, signal);
  await yieldToLoop();
  return now();
}

/** Its result, or undefined when the session was cancelled first. */
export async function drive<R>(steps: Generator<ShellStep, R>, write: Write, signal: AbortSignal): Promise<R | undefined> {
  let last = -Infinity;
  for (;;) {
    if (signal.aborted) return undefined;
    const r = steps.next();
    if (r.done) return r.value;
    const step = r.value;
    if (step.t === 'out') write(step.stream, step.text);
    else if (step.t === 'wait') last = await exchange(step.until, last, signal);
    else if (step.ms > 0) await pause(step.ms, signal);
  }
}
