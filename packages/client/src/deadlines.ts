// Request deadlines on one timer. AbortSignal.timeout leaves a live timer per request for the whole timeout
// (60 s) even after the request answered: a kubelet emulating a thousand nodes held thousands of them. Here a
// client's requests share one timeout, so their deadlines come in start order: a Set (insertion-ordered,
// O(1) delete) is the queue, and one timer waits for its head.

export interface RequestDeadline {
  /** Aborts when the deadline passes (reason: a TimeoutError DOMException, as AbortSignal.timeout) or the parent aborts. */
  readonly signal: AbortSignal;
  /** The request finished: forget its deadline. Safe to call more than once. */
  release(): void;
}

interface Entry extends RequestDeadline {
  readonly at: number;
  expire(): void;
}

export class DeadlineQueue {
  private readonly pending = new Set<Entry>();
  private timer: NodeJS.Timeout | undefined;

  /** `now` is a monotonic millisecond clock (real time: request timeouts are not part of a test's fake time). */
  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Deadlines not yet released or expired. */
  get size(): number {
    return this.pending.size;
  }

  /** A deadline `timeoutMs` from now, also aborted by `parent`. */
  start(parent?: AbortSignal): RequestDeadline {
    const ctrl = new AbortController();
    const pending = this.pending;
    const onParentAbort = () => ctrl.abort(parent?.reason);
    const entry: Entry = {
      at: this.now() + this.timeoutMs,
      signal: ctrl.signal,
      release() {
        pending.delete(entry);
        parent?.removeEventListener('abort', onParentAbort);
      },
      expire() {
        parent?.removeEventListener('abort', onParentAbort);
        ctrl.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      },
    };
    if (parent?.aborted) {
      ctrl.abort(parent.reason);
      return entry;
    }
    parent?.addEventListener('abort', onParentAbort, { once: true });
    pending.add(entry);
    this.arm();
    return entry;
  }

  private arm(): void {
    if (this.timer) return;
    const head = this.pending.values().next();
    if (head.done) return;
    // A released head leaves the timer early; it then re-arms for the next one (never more than one timer).
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(head.value.at - this.now())));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = this.now();
    for (const e of this.pending) {
      if (e.at > now) break;
      this.pending.delete(e);
      e.expire();
    }
    this.arm();
  }
}
