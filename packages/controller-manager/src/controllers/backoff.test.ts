import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff.ts';

describe('Backoff', () => {
  it('doubles from the initial delay up to max, and starts over after 2×max untouched', () => {
    const b = new Backoff(1000, 4000);
    expect(b.inBackoffSinceUpdate('k', 0)).toBe(false);
    b.next('k', 0);
    expect([b.get('k'), b.inBackoffSinceUpdate('k', 999), b.inBackoffSinceUpdate('k', 1000)]).toEqual([1000, true, false]);
    b.next('k', 1000);
    b.next('k', 3000);
    b.next('k', 7000);
    expect(b.get('k')).toBe(4000);
    expect(b.inBackoffSinceUpdate('k', 10_999)).toBe(true);
    b.next('k', 7000 + 8001);
    expect(b.get('k')).toBe(1000);
    b.gc(15_001 + 8001);
    expect(b.get('k')).toBe(0);
  });
});
