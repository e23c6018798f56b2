import { describe, expect, it } from 'vitest';
import { FakeClock } from '@kemu/base';
import { DelayingQueue } from './delaying.ts';

async function drain(q: DelayingQueue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const k = await q.get();
    if (k === undefined) break;
    out.push(k);
    q.done(k);
  }
  return out;
}

describe('DelayingQueue', () => {
  it('releases items in ready-time order, not insertion order', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('c', 300);
    q.addAfter('a', 100);
    q.addAfter('b', 200);
    expect(q.len()).toBe(0);
    await clock.advance(99);
    expect(q.len()).toBe(0);
    await clock.advance(1);
    expect(await drain(q)).toEqual(['a']);
    await clock.advance(250);
    expect(await drain(q)).toEqual(['b', 'c']);
    expect(q.waitingLen()).toBe(0);
  });

  it('a key already waiting keeps the earlier ready time', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('x', 1000);
    q.addAfter('x', 50); // earlier: replaces
    q.addAfter('x', 5000); // later: ignored
    expect(q.waitingLen()).toBe(1);
    await clock.advance(50);
    expect(await drain(q)).toEqual(['x']);
    await clock.advance(10_000);
    expect(q.len()).toBe(0);
  });

  it('addAfter with zero delay adds at once; duplicates with the queue collapse', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('now', 0);
    q.add('now');
    expect(q.len()).toBe(1);
    q.addAfter('now', 10);
    await clock.advance(10);
    expect(await drain(q)).toEqual(['now']);
  });

  it('shutDown drops waiting items', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('x', 10);
    q.shutDown();
    await clock.advance(100);
    expect(await q.get()).toBeUndefined();
    expect(clock.pendingSleepers()).toBe(0);
  });

  it('works on the real clock', async () => {
    const q = new DelayingQueue<string>();
    const t0 = Date.now();
    q.addAfter('r', 30);
    expect(await q.get()).toBe('r');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(25);
    q.shutDown();
  });
});
