import { describe, expect, it } from 'vitest';
import { startFreezeWatchdog } from './watchdog.ts';

describe('startFreezeWatchdog', () => {
  it('reports a gap longer than the renew deadline, and nothing otherwise', async () => {
    let t = 0;
    const gaps: number[] = [];
    const w = startFreezeWatchdog(1000, (g) => gaps.push(g), () => t);
    for (let i = 0; i < 5; i++) {
      t += 100;
      await new Promise((r) => setTimeout(r, 110));
    }
    expect(gaps).toEqual([]);
    t += 5000;
    await new Promise((r) => setTimeout(r, 150));
    w.stop();
    expect(gaps.length).toBeGreaterThanOrEqual(1);
    expect(gaps[0]).toBeGreaterThan(1000);
  });
});
