// Injected time: logic that tests must control (leases, back-offs, heartbeats) takes a Clock instead of
// calling Date.now()/setTimeout directly.

export interface Clock {
  now(): number;
  /** Resolves after ms (or rejects with the signal's reason when aborted). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** A manual clock for tests: time moves only with advance(). */
export class FakeClock implements Clock {
  private t: number;
  private waiters: { at: number; resolve: () => void }[] = [];
  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(signal?.reason);
      };
      const w = {
        at: this.t + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.waiters.push(w);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
  /** Moves time forward, waking sleepers in order; yields to the microtask queue between wake-ups. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      this.waiters.sort((a, b) => a.at - b.at);
      const next = this.waiters[0];
      if (!next || next.at > end) break;
      this.waiters.shift();
      this.t = Math.max(this.t, next.at);
      next.resolve();
      for (let i = 0; i < 10; i++) await Promise.resolve();
    }
    this.t = end;
  }
  pendingSleepers(): number {
    return this.waiters.length;
  }
}
