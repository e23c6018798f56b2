// The sliding window of served requests: its rate over the window, and the exact integral of that rate.
import { describe, expect, it } from 'vitest';
import { MAX_WINDOW_MS, RequestWindow } from './request-window.ts';

describe('RequestWindow', () => {
  it('rates requests over the window and forgets them after it', () => {
    const w = new RequestWindow();
    for (let t = 0; t < 10_000; t += 100) w.add(t);
    expect(w.rate(10_000, 5_000)).toBeCloseTo(10);
    expect(w.rate(10_000, 10_000)).toBeCloseTo(10);
    expect(w.rate(16_000, 5_000)).toBe(0);
    expect(w.count).toBe(100);
  });

  it('integrates the rate exactly: all requests once the window has passed, part of the recent ones before', () => {
    const w = new RequestWindow();
    w.add(0);
    w.add(1_000);
    expect(w.served(1_000, 2_000)).toBeCloseTo(0.5);
    expect(w.served(2_000, 2_000)).toBeCloseTo(1.5);
    expect(w.served(3_000, 2_000)).toBeCloseTo(2);
    expect(w.served(100_000, 2_000)).toBeCloseTo(2);
  });

  it('keeps memory bounded: old requests are folded into a count', () => {
    const w = new RequestWindow();
    for (let t = 0; t < 3 * MAX_WINDOW_MS; t += 1) w.add(t);
    expect(w.served(4 * MAX_WINDOW_MS, 10_000)).toBe(3 * MAX_WINDOW_MS);
    expect((w as unknown as { buckets: unknown[] }).buckets.length).toBeLessThanOrEqual(MAX_WINDOW_MS / 50 + 1);
  });
});
