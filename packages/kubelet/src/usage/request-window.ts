// Requests one container served, kept as cAdvisor keeps CPU samples: the usage it reports is the average rate
// over a recent window, not the instant. The rate is the number served in the last `window` divided by it, and
// its integral (what the rate has "burned" so far) is exact: a request served at `a` counts min(t − a, window) /
// window by time t, so the counter grows smoothly while the rate is high and stops once the window has passed.
// Requests are kept in short buckets for at most MAX_WINDOW_MS, so memory is bounded whatever the rate.

/** The longest window a rate can be read over. */
export const MAX_WINDOW_MS = 60_000;
/** Requests within one bucket count as served at its start (1% of a 5 s window). */
const BUCKET_MS = 50;

export class RequestWindow {
  /** [bucket start ms, requests], oldest first. */
  private readonly buckets: [number, number][] = [];
  /** Requests older than MAX_WINDOW_MS: fully counted in any window's integral. */
  private retired = 0;
  private total = 0;

  /** One request served at `at` (ms; calls come in time order). */
  add(at: number): void {
    const start = at - (at % BUCKET_MS);
    const last = this.buckets[this.buckets.length - 1];
    if (last && last[0] >= start) last[1]++;
    else this.buckets.push([start, 1]);
    this.total++;
    this.prune(at);
  }

  /** Every request served so far. */
  get count(): number {
    return this.total;
  }

  private prune(now: number): void {
    let drop = 0;
    while (drop < this.buckets.length && (this.buckets[drop]?.[0] ?? 0) < now - MAX_WINDOW_MS) this.retired += this.buckets[drop++]?.[1] ?? 0;
    if (drop) this.buckets.splice(0, drop);
  }

  /** Requests per second over the `windowMs` before `now`. */
  rate(now: number, windowMs: number): number {
    const w = clampWindow(windowMs);
    let n = 0;
    for (const [at, k] of this.buckets) if (at >= now - w && at <= now) n += k;
    return n / (w / 1000);
  }

  /** ∫ rate from the first request to `now`: the requests "worked off" so far (≤ count). */
  served(now: number, windowMs: number): number {
    const w = clampWindow(windowMs);
    this.prune(now);
    let s = this.retired;
    for (const [at, k] of this.buckets) s += (k * Math.min(Math.max(0, now - at), w)) / w;
    return s;
  }
}

function clampWindow(ms: number): number {
  return Math.min(MAX_WINDOW_MS, Math.max(BUCKET_MS, ms));
}
