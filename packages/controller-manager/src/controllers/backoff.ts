// client-go's flowcontrol.Backoff: a per-key delay that starts at `initial`, doubles on each Next up to `max`,
// and starts over once the key has been left alone for twice `max`. The clock is the caller's.
export class Backoff {
  private readonly entries = new Map<string, { delay: number; lastUpdate: number }>();

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {}

  /** The current delay of a key (0 when it has none). */
  get(key: string): number {
    return this.entries.get(key)?.delay ?? 0;
  }

  /** Next: a first or expired key gets the initial delay, else twice the last (at most max). */
  next(key: string, now: number): void {
    const e = this.entries.get(key);
    if (!e || now - e.lastUpdate > 2 * this.maxMs) this.entries.set(key, { delay: this.initialMs, lastUpdate: now });
    else this.entries.set(key, { delay: Math.min(e.delay * 2, this.maxMs), lastUpdate: now });
  }

  /** IsInBackOffSinceUpdate: less than the key's delay has passed since its last Next. */
  inBackoffSinceUpdate(key: string, now: number): boolean {
    const e = this.entries.get(key);
    if (!e || now - e.lastUpdate > 2 * this.maxMs) return false;
    return now - e.lastUpdate < e.delay;
  }

  /** GC: forgets keys left alone for twice max. */
  gc(now: number): void {
    for (const [k, e] of this.entries) if (now - e.lastUpdate > 2 * this.maxMs) this.entries.delete(k);
  }
}
