// A token bucket like client-go's flowcontrol.NewTokenBucketRateLimiter (golang.org/x/time/rate underneath):
// `burst` tokens, refilled at `qps` per second. Callers reserve a token and wait for it, so a burst of
// requests is spread out at qps instead of being refused.
import { realClock, type Clock } from '@kemu/base';

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Takes one token now and returns how long (ms) the caller must wait before using it (0 = at once). */
  reserve(): number {
    if (this.qps <= 0) return 0; // disabled, as QPS < 0 in client-go
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    if (this.tokens >= 0) return 0;
    return Math.ceil((-this.tokens / this.qps) * 1000);
  }

  /** Takes a token if one is available at once (no debt). */
  tryAccept(): boolean {
    if (this.qps <= 0) return true;
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Waits for a token (rejects if the signal aborts first). */
  async wait(signal?: AbortSignal): Promise<void> {
    const ms = this.reserve();
    if (ms > 0) await this.clock.sleep(ms, signal);
  }
}
