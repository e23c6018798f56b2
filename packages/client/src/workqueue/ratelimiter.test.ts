import { describe, expect, it } from 'vitest';
import { FakeClock } from '@kemu/base';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
  type RateLimiter,
} from './ratelimiter.ts';
import { RateLimitingQueue } from './ratelimiting.ts';

// Conformance: what every RateLimiter must do, run against each implementation.
const limiters: { name: string; make: () => RateLimiter<string>; perItem: boolean }[] = [
  { name: 'ItemExponentialFailureRateLimiter', make: () => new ItemExponentialFailureRateLimiter(5, 1000), perItem: true },
  { name: 'ItemFastSlowRateLimiter', make: () => new ItemFastSlowRateLimiter(5, 1000, 3), perItem: true },
  { name: 'BucketRateLimiter', make: () => new BucketRateLimiter(10, 100, new FakeClock()), perItem: false },
  { name: 'MaxOfRateLimiter', make: () => new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(5, 1000), new BucketRateLimiter(10, 100, new FakeClock())), perItem: true },
  { name: 'defaultControllerRateLimiter', make: () => defaultControllerRateLimiter(new FakeClock()), perItem: true },
];

describe.each(limiters)('RateLimiter conformance: $name', ({ make, perItem }) => {
  it('returns a non-negative finite delay', () => {
    const l = make();
    for (let i = 0; i < 50; i++) {
      const d = l.when('a');
      expect(d).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(d)).toBe(true);
    }
  });
  it('counts requeues per item (when it keeps history) and forget resets them', () => {
    const l = make();
    l.when('a');
    l.when('a');
    l.when('b');
    expect(l.numRequeues('a')).toBe(perItem ? 2 : 0);
    expect(l.numRequeues('b')).toBe(perItem ? 1 : 0);
    l.forget('a');
    expect(l.numRequeues('a')).toBe(0);
    expect(l.numRequeues('b')).toBe(perItem ? 1 : 0);
  });
  it('an unknown item has no requeues', () => {
    expect(make().numRequeues('never')).toBe(0);
  });
});

describe('rate limiter math', () => {
  it('exponential: base*2^n capped at max; forget restarts at base', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(5, 1000);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(() => l.when('x'))).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1000]);
    expect(l.when('y')).toBe(5);
    l.forget('x');
    expect(l.when('x')).toBe(5);
  });
  it('exponential: huge exponents stay at max', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(1, 60_000);
    for (let i = 0; i < 2000; i++) l.when('x');
    expect(l.when('x')).toBe(60_000);
  });
  it('fast/slow', () => {
    const l = new ItemFastSlowRateLimiter<string>(5, 10_000, 2);
    expect([l.when('x'), l.when('x'), l.when('x'), l.when('x')]).toEqual([5, 5, 10_000, 10_000]);
  });
  it('bucket: burst free, then 1/qps apart, refilled with time', async () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter<string>(10, 3, clock);
    expect([l.when('a'), l.when('b'), l.when('c')]).toEqual([0, 0, 0]);
    expect(l.when('d')).toBe(100);
    expect(l.when('e')).toBe(200);
    await clock.advance(1000);
    // 1 s refills 10 tokens but the bucket holds at most 3; the 2 owed are paid first.
    expect(l.when('f')).toBe(0);
  });
  it('default controller limiter: first failures are per item, bursts beyond 100 are throttled at 10 qps', () => {
    const l = defaultControllerRateLimiter<string>(new FakeClock());
    expect(l.when('a')).toBe(5);
    expect(l.when('a')).toBe(10);
    for (let i = 0; i < 98; i++) l.when(`k${i}`);
    expect(l.when('z')).toBe(100);
  });
});

describe('RateLimitingQueue', () => {
  it('addRateLimited delays per the limiter; forget resets; numRequeues counts', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter(100, 10_000) });
    q.addRateLimited('x');
    expect(q.numRequeues('x')).toBe(1);
    await clock.advance(99);
    expect(q.len()).toBe(0);
    await clock.advance(1);
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe('x');
    q.addRateLimited('x'); // 200 ms, and deferred until done
    q.done('x');
    await clock.advance(199);
    expect(q.len()).toBe(0);
    await clock.advance(1);
    expect(await q.get()).toBe('x');
    q.forget('x');
    q.done('x');
    expect(q.numRequeues('x')).toBe(0);
    q.shutDown();
  });
});
