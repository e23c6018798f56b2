// A deadline on an injected Clock, as an AbortSignal (so FakeClock tests control request deadlines too).
import type { Clock } from '@kemu/base';

/** A signal that aborts after ms on the given clock, or when the parent aborts. */
export function clockTimeout(clock: Clock, ms: number, parent: AbortSignal): { signal: AbortSignal; cancel(): void } {
  const ctrl = new AbortController();
  const timer = new AbortController();
  const onParent = () => ctrl.abort(parent.reason);
  if (parent.aborted) ctrl.abort(parent.reason);
  else parent.addEventListener('abort', onParent, { once: true });
  clock.sleep(ms, timer.signal).then(
    () => ctrl.abort(new Error(`timed out after ${ms}ms`)),
    () => undefined,
  );
  return {
    signal: ctrl.signal,
    cancel: () => {
      timer.abort();
      parent.removeEventListener('abort', onParent);
    },
  };
}
