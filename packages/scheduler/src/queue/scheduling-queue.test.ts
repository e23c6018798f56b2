import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '@kemu/base';
import { PrioritySort, SchedulingGates } from '@kemu/scheduler-framework';
import { makePod } from '@kemu/scheduler-framework/testing/wrappers';
import { ClusterEvent } from './events.ts';
import { SchedulingQueue } from './scheduling-queue.ts';

const queues: SchedulingQueue[] = [];
afterEach(() => {
  for (const q of queues.splice(0)) q.close();
});

function newQueue(clock = new FakeClock()) {
  const sort = new PrioritySort();
  const gates = new SchedulingGates();
  const q = new SchedulingQueue({ less: (a, b) => sort.less(a, b), clock, preEnqueue: (p) => gates.preEnqueue(p) });
  queues.push(q);
  return { q, clock };
}

/** Pops and fails a pod as unschedulable by a plugin. */
async function popAndFail(q: SchedulingQueue, plugin = 'NodeResourcesFit') {
  const p = await q.pop();
  if (!p) throw new Error('nothing to pop');
  p.unschedulablePlugins = new Set([plugin]);
  q.addUnschedulableIfNotPresent(p, q.schedulingCycle());
  return p;
}

describe('SchedulingQueue', () => {
  it('pops by priority, then FIFO; de-duplicates', async () => {
    const { q, clock } = newQueue();
    q.add(makePod('low', { priority: 1 }));
    await clock.advance(1);
    q.add(makePod('high', { priority: 10 }));
    await clock.advance(1);
    q.add(makePod('low2', { priority: 1 }));
    q.add(makePod('low', { priority: 1 }));
    expect(q.pendingCounts().active).toBe(3);
    const order = [];
    for (let i = 0; i < 3; i++) order.push((await q.pop())?.podInfo.name);
    expect(order).toEqual(['high', 'low', 'low2']);
  });

  it('backs off 1s doubling to 10s per attempt', async () => {
    const { q, clock } = newQueue();
    q.add(makePod('p'));
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      await popAndFail(q);
      q.moveAllToActiveOrBackoffQueue(ClusterEvent.NodeAdd);
      expect(q.pendingCounts().backoff).toBe(1);
      let waited = 0;
      while (q.pendingCounts().active === 0) {
        await clock.advance(100);
        waited += 100;
        q.flushBackoffQCompleted();
      }
      waits.push(waited);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 10000, 10000]);
  });

  it('unschedulable pods move on events that may help, and after 5 minutes otherwise', async () => {
    const { q, clock } = newQueue();
    q.add(makePod('p'));
    await popAndFail(q, 'NodeResourcesFit');
    expect(q.pendingCounts().unschedulable).toBe(1);
    await clock.advance(2000);
    q.moveAllToActiveOrBackoffQueue(ClusterEvent.AssignedPodAdd); // cannot help a resources failure
    expect(q.pendingCounts().unschedulable).toBe(1);
    q.moveAllToActiveOrBackoffQueue(ClusterEvent.AssignedPodDelete);
    expect(q.pendingCounts()).toMatchObject({ active: 1, unschedulable: 0 });

    await popAndFail(q, 'TaintToleration');
    await clock.advance(5 * 60_000 + 1);
    q.flushUnschedulableLeftover();
    expect(q.pendingCounts()).toMatchObject({ active: 1, unschedulable: 0 });
  });

  it('a pod failing after a move during its cycle goes to backoff, not unschedulable', async () => {
    const { q } = newQueue();
    q.add(makePod('p'));
    const p = await q.pop();
    if (!p) throw new Error('no pod');
    const cycle = q.schedulingCycle();
    q.moveAllToActiveOrBackoffQueue(ClusterEvent.NodeAdd);
    p.unschedulablePlugins = new Set(['NodeResourcesFit']);
    q.addUnschedulableIfNotPresent(p, cycle);
    expect(q.pendingCounts()).toMatchObject({ backoff: 1, unschedulable: 0 });
  });

  it('deleting a pod removes it from every queue', async () => {
    const { q } = newQueue();
    q.add(makePod('a'));
    q.add(makePod('b'));
    await popAndFail(q);
    q.delete('default/a');
    q.delete('default/b');
    expect(q.pendingCounts()).toEqual({ active: 0, backoff: 0, unschedulable: 0, gated: 0 });
  });

  it('gated pods wait until their scheduling gates are removed', async () => {
    const { q } = newQueue();
    const gated = makePod('g');
    (gated.spec as { schedulingGates?: { name: string }[] }).schedulingGates = [{ name: 'example.com/wait' }];
    q.add(gated);
    expect(q.pendingCounts()).toMatchObject({ active: 0, gated: 1 });
    q.update(makePod('g'));
    expect(q.pendingCounts()).toMatchObject({ active: 1, gated: 0 });
  });

  it('updates of an unschedulable pod re-activate it only when the spec changes', async () => {
    const { q, clock } = newQueue();
    q.add(makePod('p', { labels: { a: '1' } }));
    await popAndFail(q);
    await clock.advance(2000);
    const same = makePod('p', { labels: { a: '1' } });
    same.metadata.resourceVersion = '99';
    q.update(same);
    expect(q.pendingCounts().unschedulable).toBe(1);
    q.update(makePod('p', { labels: { a: '2' } }));
    expect(q.pendingCounts()).toMatchObject({ active: 1, unschedulable: 0 });
  });
});
