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

/** Its result, or undefined when the session was cancelled first. */
export async function drive<R>(steps: Generator<ShellStep, R>, write: Write, signal: AbortSignal): Promise<R | undefined> {
  for (;;) {
    if (signal.aborted) return undefined;
    const r = steps.next();
    if (r.done) return r.value;
    const step = r.value;
    if (step.t === 'out') write(step.stream, step.text);
    else if (step.t === 'wait') await until(step.until, signal);
    else if (step.ms > 0) await pause(step.ms, signal);
  }
}
