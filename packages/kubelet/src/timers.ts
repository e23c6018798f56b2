// One timer for a whole process: every heartbeat and pod transition of every emulated node is an entry in a
// min-heap, and a single setTimeout waits for the earliest. Thousands of nodes cost one timer, not thousands.
import type { Clock } from '@kemu/base';

export interface TimerHandle {
  at: number;
  fn: () => void;
  cancelled: boolean;
}

export class TimerQueue {
  private heap: TimerHandle[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private stopped = false;

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  /** Runs fn at `at` (clock ms). Returns a handle for cancel(). */
  at(at: number, fn: () => void): TimerHandle {
    const h: TimerHandle = { at, fn, cancelled: false };
    this.push(h);
    this.arm();
    return h;
  }

  after(ms: number, fn: () => void): TimerHandle {
    return this.at(this.clock.now() + ms, fn);
  }

  cancel(h: TimerHandle | undefined): void {
    if (h) h.cancelled = true;
  }

  size(): number {
    return this.heap.length;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.heap = [];
  }

  /** Runs every entry due at `now` (the real timer calls it; tests may too). */
  runDue(now = this.clock.now()): void {
    for (;;) {
      const top = this.heap[0];
      if (!top || top.at > now) break;
      this.pop();
      if (top.cancelled) continue;
      try {
        top.fn();
      } catch {
        // A failing callback must not stop everyone else's timers; callers log their own errors.
      }
    }
  }

  private arm(): void {
    if (this.stopped) return;
    while (this.heap[0]?.cancelled) this.pop();
    const top = this.heap[0];
    if (!top) return;
    if (this.timer && this.timerAt <= top.at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = top.at;
    const delay = Math.max(0, top.at - this.clock.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.runDue();
      this.arm();
    }, Math.min(delay, 2_147_000_000));
  }

  private push(h: TimerHandle): void {
    const a = this.heap;
    a.push(h);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = a[p];
      if (!parent || parent.at <= h.at) break;
      a[i] = parent;
      i = p;
    }
    a[i] = h;
  }

  private pop(): TimerHandle | undefined {
    const a = this.heap;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || !last) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let mAt = last.at;
      const le = a[l];
      const re = a[r];
      if (le && le.at < mAt) {
        m = l;
        mAt = le.at;
      }
      if (re && re.at < mAt) m = r;
      if (m === i) break;
      a[i] = a[m] as TimerHandle;
      i = m;
    }
    a[i] = last;
    return top;
  }
}
