// Self-fencing for a leader whose process was frozen (SIGSTOP, a VM pause, a long event-loop stall): if more
// than renewDeadline passed between two ticks, another candidate may already hold the Lease, so we must not
// act on anything queued meanwhile. The tick runs in the timers phase, before any I/O delivered after the
// freeze reaches a controller.
export interface Watchdog {
  stop(): void;
}

export function startFreezeWatchdog(renewDeadlineMs: number, onFrozen: (gapMs: number) => void, now: () => number = Date.now): Watchdog {
  const tickMs = Math.max(10, Math.min(100, Math.floor(renewDeadlineMs / 10)));
  let last = now();
  const timer = setInterval(() => {
    const t = now();
    const gap = t - last;
    last = t;
    if (gap > renewDeadlineMs) onFrozen(gap);
  }, tickMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
