// What the REST client asks of a leader before each write (kemu fencing; client-go has none). A fenced
// client sends every mutating request with the X-Kemu-Lease header, only while the fence admits it, and
// aborts the requests still in flight when the fence's term ends. The leader elector provides the fence.

/** A write the client refused to start, or aborted, because this process no longer (surely) leads. */
export class FencedWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FencedWriteError';
  }
}

export interface WriteFence {
  /** The Lease the fence is about; writes to that Lease object itself are never fenced (renewals). */
  readonly lease: { namespace: string; name: string };
  /**
   * Called synchronously right before a write is sent. Returns the X-Kemu-Lease header value when the write
   * may start now; undefined when the renew deadline has passed but the term is not over (a renewal is
   * still being attempted: wait with nextRenewal, then ask again); throws FencedWriteError when the term
   * is over (leadership lost or released, or never held).
   */
  admit(): string | undefined;
  /** Resolves at the next successful renewal; rejects with FencedWriteError when the term ends first. */
  nextRenewal(signal?: AbortSignal): Promise<void>;
  /** Aborts (reason: a FencedWriteError) when the current term ends; already aborted between terms. */
  readonly signal: AbortSignal;
}
