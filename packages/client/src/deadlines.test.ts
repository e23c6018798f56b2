import { describe, expect, it } from 'vitest';
import { DeadlineQueue } from './deadlines.ts';

describe('DeadlineQueue', () => {
  it('aborts with a TimeoutError once the timeout passes; released deadlines are forgotten', async () => {
    const q = new DeadlineQueue(60);
    const a = q.start();
    const b = q.start();
    b.release();
    expect(q.size).toBe(1);
    const reason = await new Promise<unknown>((r) => a.signal.addEventListener('abort', () => r(a.signal.reason)));
    expect(reason).toMatchObject({ name: 'TimeoutError' });
    expect(b.signal.aborted).toBe(false);
    expect(q.size).toBe(0);
  });

  it('follows the parent signal, and a parent that already aborted aborts at once', () => {
    const q = new DeadlineQueue(60_000);
    const parent = new AbortController();
    const d = q.start(parent.signal);
    parent.abort('stop');
    expect(d.signal.reason).toBe('stop');
    d.release();
    expect(q.size).toBe(0);
    expect(q.start(parent.signal).signal.aborted).toBe(true);
    expect(q.size).toBe(0);
  });
});
