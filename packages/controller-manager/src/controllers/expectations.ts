// Controller expectations (Kubernetes' UIDTrackingControllerExpectations): after a controller asks for N
// creations or deletions it does not act on that owner again until its informer has observed them, or
// until they expire (5 minutes), so a cache that lags behind our own writes never causes duplicates.
import type { Clock } from '@kemu/base';

export const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

interface Record_ {
  add: number;
  del: number;
  timestamp: number;
  /** Keys of the pods we asked to delete: each is counted once, however many events it produces. */
  deleting: Set<string>;
}

export class Expectations {
  private readonly records = new Map<string, Record_>();

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs = EXPECTATIONS_TIMEOUT_MS,
  ) {}

  /** True when nothing is pending for this owner (or what was pending has expired). */
  satisfied(key: string): boolean {
    const r = this.records.get(key);
    if (!r) return true;
    if (r.add <= 0 && r.del <= 0) return true;
    return this.clock.now() - r.timestamp > this.timeoutMs;
  }

  expectCreations(key: string, n: number): void {
    this.records.set(key, { add: n, del: 0, timestamp: this.clock.now(), deleting: new Set() });
  }

  expectDeletions(key: string, podKeys: string[]): void {
    this.records.set(key, { add: 0, del: podKeys.length, timestamp: this.clock.now(), deleting: new Set(podKeys) });
  }

  creationObserved(key: string): void {
    const r = this.records.get(key);
    if (r) r.add--;
  }

  /** Counts a deletion once per pod we asked to delete; other pods' deletions do not count. */
  deletionObserved(key: string, podKey: string): void {
    const r = this.records.get(key);
    if (r && r.deleting.delete(podKey)) r.del--;
  }

  /** For creations that were never sent (a failed batch): stop waiting for them. */
  lowerExpectations(key: string, adds: number, dels: number): void {
    const r = this.records.get(key);
    if (!r) return;
    r.add -= adds;
    r.del -= dels;
  }

  /**
   * For requests whose outcome is unknown (the connection dropped, a timeout): keep waiting for them — the
   * informer will report them if they happened — but give up after ms instead of the full timeout.
   */
  expireWithin(key: string, ms: number): void {
    const r = this.records.get(key);
    if (!r) return;
    r.timestamp = Math.min(r.timestamp, this.clock.now() - this.timeoutMs + ms);
  }

  /** Milliseconds until the pending expectations of key expire (0 when satisfied). */
  msUntilExpired(key: string): number {
    const r = this.records.get(key);
    if (!r || this.satisfied(key)) return 0;
    return Math.max(0, r.timestamp + this.timeoutMs - this.clock.now()) + 1;
  }

  delete(key: string): void {
    this.records.delete(key);
  }

  /** For tests and debugging. */
  pending(key: string): { add: number; del: number } | undefined {
    const r = this.records.get(key);
    return r ? { add: r.add, del: r.del } : undefined;
  }
}
