import { describe, expect, it } from 'vitest';
import { Queue } from './queue.ts';

describe('Queue', () => {
  const cases: { name: string; run: (q: Queue<string>) => Promise<unknown[]>; want: unknown[] }[] = [
    {
      name: 'FIFO order',
      run: async (q) => {
        q.add('a');
        q.add('b');
        q.add('c');
        return [await q.get(), await q.get(), await q.get()];
      },
      want: ['a', 'b', 'c'],
    },
    {
      name: 'duplicates while queued collapse to one',
      run: async (q) => {
        q.add('a');
        q.add('b');
        q.add('a');
        return [q.len(), await q.get(), await q.get(), q.len()];
      },
      want: [2, 'a', 'b', 0],
    },
    {
      name: 'an item added while processing is not handed out until done, then exactly once',
      run: async (q) => {
        q.add('a');
        const first = await q.get();
        q.add('a');
        q.add('a');
        const lenWhileProcessing = q.len();
        q.done('a');
        const lenAfterDone = q.len();
        const second = await q.get();
        q.done('a');
        return [first, lenWhileProcessing, lenAfterDone, second, q.len()];
      },
      want: ['a', 0, 1, 'a', 0],
    },
    {
      name: 'done without re-add does not requeue',
      run: async (q) => {
        q.add('a');
        await q.get();
        q.done('a');
        return [q.len()];
      },
      want: [0],
    },
    {
      name: 'shutDown wakes waiters with undefined and refuses adds',
      run: async (q) => {
        const waiting = q.get();
        q.shutDown();
        q.add('x');
        return [await waiting, await q.get(), q.shuttingDown()];
      },
      want: [undefined, undefined, true],
    },
    {
      name: 'items queued before shutDown are still drained',
      run: async (q) => {
        q.add('a');
        q.shutDown();
        return [await q.get(), await q.get()];
      },
      want: ['a', undefined],
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      expect(await c.run(new Queue<string>())).toEqual(c.want);
    });
  }

  it('never hands one key to two workers at once', async () => {
    const q = new Queue<string>();
    const active = new Set<string>();
    let overlaps = 0;
    let processed = 0;
    const worker = async () => {
      for (;;) {
        const k = await q.get();
        if (k === undefined) return;
        if (active.has(k)) overlaps++;
        active.add(k);
        await new Promise((r) => setImmediate(r));
        processed++;
        active.delete(k);
        q.done(k);
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    for (let i = 0; i < 200; i++) {
      q.add(`k${i % 5}`);
      if (i % 7 === 0) await new Promise((r) => setImmediate(r));
    }
    while (q.len() > 0 || active.size > 0) await new Promise((r) => setImmediate(r));
    q.shutDown();
    await Promise.all(workers);
    expect(overlaps).toBe(0);
    expect(processed).toBeGreaterThanOrEqual(5);
  });

  it('a waiting worker gets an item added later', async () => {
    const q = new Queue<string>();
    const p = q.get();
    q.add('late');
    expect(await p).toBe('late');
    q.add('late');
    expect(q.len()).toBe(0); // still processing
    q.done('late');
    expect(await q.get()).toBe('late');
  });
});
