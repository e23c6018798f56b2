// Rate limiters for requeues, as client-go's default_rate_limiters.go: `when(item)` says how long to wait
// before the item may be retried, `forget(item)` clears its failure history.
import { realClock, type Clock } from '@kemu/base';
import { TokenBucket } from '../ratelimit.ts';

export interface RateLimiter<K> {
  /** Delay in ms before the item may be processed again (each call counts one failure). */
  when(key: K): number;
  forget(key: K): void;
  numRequeues(key: K): number;
}

/** base * 2^failures per item, capped at max (client-go's ItemExponentialFailureRateLimiter). */
export class ItemExponentialFailureRateLimiter<K> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();
  constructor(
    readonly baseMs: number,
    readonly maxMs: number,
  ) {}
  when(key: K): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    const backoff = this.baseMs * 2 ** exp;
    return backoff > this.maxMs || !Number.isFinite(backoff) ? this.maxMs : backoff;
  }
  forget(key: K): void {
    this.failures.delete(key);
  }
  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}

/** fast delay for the first maxFastAttempts failures, slow after (client-go's ItemFastSlowRateLimiter). */
export class ItemFastSlowRateLimiter<K> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();
  constructor(
    readonly fastMs: number,
    readonly slowMs: number,
    readonly maxFastAttempts: number,
  ) {}
  when(key: K): number {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    return n <= this.maxFastAttempts ? this.fastMs : this.slowMs;
  }
  forget(key: K): void {
    this.failures.delete(key);
  }
  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}

/** An overall token bucket shared by all items (client-go's BucketRateLimiter); keeps no per-item history. */
export class BucketRateLimiter<K> implements RateLimiter<K> {
  private readonly bucket: TokenBucket;
  constructor(qps: number, burst: number, clock: Clock = realClock) {
    this.bucket = new TokenBucket(qps, burst, clock);
  }
  when(_key: K): number {
    return this.bucket.reserve();
  }
  forget(_key: K): void {}
  numRequeues(_key: K): number {
    return 0;
  }
}

/** The worst (longest) delay of several limiters (client-go's MaxOfRateLimiter). */
export class MaxOfRateLimiter<K> implements RateLimiter<K> {
  private readonly limiters: RateLimiter<K>[];
  constructor(...limiters: RateLimiter<K>[]) {
    this.limiters = limiters;
  }
  when(key: K): number {
    let ms = 0;
    for (const l of this.limiters) ms = Math.max(ms, l.when(key));
    return ms;
  }
  forget(key: K): void {
    for (const l of this.limiters) l.forget(key);
  }
  numRequeues(key: K): number {
    let n = 0;
    for (const l of this.limiters) n = Math.max(n, l.numRequeues(key));
    return n;
  }
}

/** client-go's DefaultControllerRateLimiter: max(exponential 5 ms .. 1000 s per item, 10 qps / 100 burst overall). */
export function defaultControllerRateLimiter<K>(clock: Clock = realClock): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(new ItemExponentialFailureRateLimiter<K>(5, 1_000_000), new BucketRateLimiter<K>(10, 100, clock));
}
