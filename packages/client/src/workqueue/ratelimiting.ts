// The rate-limited queue (client-go's RateLimitingInterface): addRateLimited waits as long as the limiter
// says; forget clears an item's failure history once it has been processed successfully.
import type { Clock } from '@kemu/base';
import { DelayingQueue } from './delaying.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './ratelimiter.ts';

export class RateLimitingQueue<K = string> extends DelayingQueue<K> {
  readonly name: string;
  private readonly limiter: RateLimiter<K>;

  constructor(opts: { rateLimiter?: RateLimiter<K>; clock?: Clock; name?: string } = {}) {
    super({ clock: opts.clock });
    this.name = opts.name ?? '';
    this.limiter = opts.rateLimiter ?? defaultControllerRateLimiter<K>(this.clock);
  }

  addRateLimited(key: K): void {
    this.addAfter(key, this.limiter.when(key));
  }

  forget(key: K): void {
    this.limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.limiter.numRequeues(key);
  }
}
