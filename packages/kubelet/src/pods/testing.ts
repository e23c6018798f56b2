// Test helpers for pod lifecycles: a node environment, and driving a lifecycle on a fake clock.
import { realClock, type FakeClock } from '@kemu/base';
import type { LifecycleEnv, PodLifecycle } from './lifecycle.ts';

/** A node whose image pulls take `pullMs` (images in `images` are present) and whose container IDs count up. */
export function lifecycleEnv(pullMs = 0, images = new Set<string>()): LifecycleEnv {
  let n = 0;
  return {
    imagePullMs: pullMs,
    hasImage: (i) => images.has(i),
    imagePulled: (i) => void images.add(i),
    newContainerID: () => `kemu://${(++n).toString(16).padStart(8, '0')}`,
  };
}

/** Drives a lifecycle on a fake clock: runs advance() at every wake-up until `untilMs` from now. */
export async function runLifecycle(lc: PodLifecycle, clock: FakeClock, untilMs: number): Promise<void> {
  const end = clock.now() + untilMs;
  let next = lc.advance(clock.now());
  while (next !== undefined && next <= end) {
    await clock.advance(next - clock.now());
    next = lc.advance(clock.now());
  }
  await clock.advance(end - clock.now());
  lc.advance(clock.now());
}

/** Drives a lifecycle on the real clock as a pod worker would, its timers kept in `timers` for clean-up. */
export function driveOnRealClock(lc: PodLifecycle, timers: Set<NodeJS.Timeout>): void {
  const tick = () => {
    const next = lc.advance(realClock.now());
    if (next === undefined) return;
    const t = setTimeout(() => {
      timers.delete(t);
      tick();
    }, Math.max(0, next - realClock.now()));
    timers.add(t);
  };
  tick();
}
