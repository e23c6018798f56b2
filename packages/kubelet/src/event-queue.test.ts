import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kemu/api';
import { EventQueue } from './event-queue.ts';

describe('EventQueue', () => {
  it('feeds the recorder a batch at a time and drops what does not fit in the queue', async () => {
    const got: string[] = [];
    let release!: () => void;
    let flushes = 0;
    const recorder = {
      event: (_o: KubeObject, _t: string, reason: string) => void got.push(reason),
      flush: () => {
        flushes++;
        return new Promise<void>((r) => (release = r));
      },
    };
    const q = new EventQueue(recorder, 5, 2);
    const obj: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } };
    for (let i = 0; i < 8; i++) q.event(obj, 'Normal', `r${i}`, 'm');
    // r0 went to the recorder at once; r1..r5 wait (5), r6 and r7 were dropped.
    expect(got).toEqual(['r0']);
    expect(q.length).toBe(5);
    expect(q.dropped).toBe(2);
    while (q.length) {
      release();
      await new Promise((r) => setImmediate(r));
    }
    release();
    expect(got).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    expect(flushes).toBe(4);
  });
});
