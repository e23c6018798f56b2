// A queue whose items can be added after a delay (client-go's DelayingInterface). Waiting items are kept
// sorted by ready time; an item already waiting keeps the earlier of its two ready times. One timer (on the
// injected clock) sleeps until the earliest item is due.
import { realClock, type Clock } from '@kemu/base';
import { Queue } from './queue.ts';

interface Waiting<K> {
  at: number;
  key: K;
}

export class DelayingQueue<K = string> extends Queue<K> {
  protected readonly clock: Clock;
  private waiting: Waiting<K>[] = [];
  private readonly byKey = new Map<K, Waiting<K>>();
  private timer: { at: number; ctrl: AbortController } | undefined;

  constructor(opts: { clock?: Clock } = {}) {
    super();
    this.clock = opts.clock ?? realClock;
  }

  /** Adds key once ms have passed (at once when ms <= 0). */
  addAfter(key: K, ms: number): void {
    if (this.shuttingDown()) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.clock.now() + ms;
    const existing = this.byKey.get(key);
    if (existing) {
      if (existing.at <= at) return;
      this.waiting.splice(this.waiting.indexOf(existing), 1);
    }
    const w = { at, key };
    this.byKey.set(key, w);
    // Binary insert keeps `waiting` ordered by ready time (stable for equal times: FIFO).
    let lo = 0;
    let hi = this.waiting.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.waiting[mid] as Waiting<K>).at <= at) lo = mid + 1;
      else hi = mid;
    }
    this.waiting.splice(lo, 0, w);
    this.schedule();
  }

  /** Items waiting for their delay (extra, for tests and metrics). */
  waitingLen(): number {
    return this.waiting.length;
  }

  override shutDown(): void {
    this.timer?.ctrl.abort();
    this.timer = undefined;
    this.waiting = [];
    this.byKey.clear();
    super.shutDown();
  }

  private schedule(): void {
    const first = this.waiting[0];
    if (!first || this.shuttingDown()) return;
    if (this.timer && this.timer.at <= first.at) return;
    this.timer?.ctrl.abort();
    const ctrl = new AbortController();
    this.timer = { at: first.at, ctrl };
    this.clock.sleep(Math.max(0, first.at - this.clock.now()), ctrl.signal).then(
      () => {
        if (this.timer?.ctrl === ctrl) this.timer = undefined;
        this.release();
      },
      () => undefined, // replaced by an earlier timer, or shut down
    );
  }

  private release(): void {
    const now = this.clock.now();
    while (this.waiting.length > 0 && (this.waiting[0] as Waiting<K>).at <= now) {
      const w = this.waiting.shift() as Waiting<K>;
      this.byKey.delete(w.key);
      this.add(w.key);
    }
    this.schedule();
  }
}
