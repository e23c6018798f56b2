// The leader's write fence (kemu; client-go has none): the WriteFence the LeaderElector hands to its
// component's REST clients. A term begins when the Lease is acquired and ends when it is lost or released.
// Within a term a write may start only before `renewDeadline` has passed since the start of the last
// successful acquire/renew, measured on this process's monotonic clock: followers count a full lease
// duration (> renewDeadline) from when they *saw* that renewal, which was written after it started, so a
// write started in time cannot overlap a successor (clock rates assumed alike, as client-go assumes).
// A process frozen past that point (SIGSTOP, a VM pause, an event-loop stall) finds on waking that it may
// not write, whatever order its timers and queued I/O run in.
import { setMaxListeners } from 'node:events';
import { formatLeaseFence } from '@kemu/api';
import { FencedWriteError, type WriteFence } from '../write-fence.ts';

interface Term {
  ctrl: AbortController;
  holder: string;
  transitions: number;
  /** Monotonic ms after which no write may start until the next renewal. */
  writableUntil: number;
  header: string;
}

const ENDED = (() => {
  const c = new AbortController();
  c.abort(new FencedWriteError('not the leader'));
  return c.signal;
})();

export class LeaseFence implements WriteFence {
  readonly lease: { namespace: string; name: string };
  private term: Term | undefined;
  /** Why the last term ended (for the refusal's message). */
  private endedWhy: string | undefined;
  private waiters = new Set<{ resolve(): void; reject(e: unknown): void }>();

  constructor(
    namespace: string,
    name: string,
    private readonly renewDeadlineMs: number,
    /** Monotonic ms (performance.now by default; tests inject their clock). */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lease = { namespace, name };
  }

  get signal(): AbortSignal {
    return this.term?.ctrl.signal ?? ENDED;
  }

  admit(): string | undefined {
    const t = this.term;
    if (!t) throw this.refusal();
    return this.now() < t.writableUntil ? t.header : undefined;
  }

  nextRenewal(signal?: AbortSignal): Promise<void> {
    if (!this.term) return Promise.reject(this.refusal());
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(w);
        reject(signal?.reason);
      };
      const w = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (e: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      this.waiters.add(w);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * A successful acquire or renewal that started at `startedAt` (monotonic ms) left the Lease held by
   * `holder` at `transitions`. Begins a term, or extends the current one; a changed holder or transitions
   * (we lost the Lease and took it back) ends the old term first, aborting its writes.
   */
  renewed(holder: string, transitions: number, startedAt: number): void {
    const t = this.term;
    if (t && (t.holder !== holder || t.transitions !== transitions)) this.end('the lease changed hands');
    const writableUntil = startedAt + this.renewDeadlineMs;
    if (this.term) this.term.writableUntil = Math.max(this.term.writableUntil, writableUntil);
    else {
      const header = formatLeaseFence({ ...this.lease, holder, transitions });
      const ctrl = new AbortController();
      // Every write in flight listens on it (a burst of binds is hundreds): no leak warning for that.
      setMaxListeners(0, ctrl.signal);
      this.term = { ctrl, holder, transitions, writableUntil, header };
    }
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w.resolve();
  }

  /** Leadership lost or released: in-flight writes abort, waiting ones fail, new ones are refused. */
  end(why: string): void {
    const t = this.term;
    this.term = undefined;
    this.endedWhy = why;
    const err = this.refusal();
    t?.ctrl.abort(err);
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w.reject(err);
  }

  private refusal(): FencedWriteError {
    const lease = `${this.lease.namespace}/${this.lease.name}`;
    if (this.endedWhy === undefined) return new FencedWriteError(`not the holder of lease ${lease}: write refused`);
    return new FencedWriteError(`lease ${lease} no longer held (${this.endedWhy}): write refused`);
  }
}
