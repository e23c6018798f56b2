import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '@kemu/api';
import { FakeClock } from '@kemu/base';
import { makePod } from '@kemu/scheduler-framework/testing/wrappers';
import { FakeProvider, fakeNode } from '../testing/fake-provider.ts';
import { removeNode, type ActuatorApi, type EvictionResult } from './actuator.ts';

function fakeApi(evict: (p: Pod) => EvictionResult) {
  const calls: string[] = [];
  const events: string[] = [];
  const evicted = new Set<string>();
  const api: ActuatorApi = {
    async addToBeDeletedTaint(n) {
      calls.push(`taint ${n}`);
    },
    async removeToBeDeletedTaint(n) {
      calls.push(`untaint ${n}`);
    },
    async evict(p) {
      const r = evict(p);
      calls.push(`evict ${p.metadata.name}: ${r}`);
      if (r === 'evicted') evicted.add(p.metadata.name ?? '');
      return r === 'blocked' ? { result: r, message: 'Cannot evict pod as it would violate the pod\'s disruption budget.' } : { result: r };
    },
    podsLeft: (_n, pods) => pods.filter((p) => !evicted.has(p.metadata.name ?? '')),
    event(obj: Node | Pod, type, reason, message) {
      events.push(`${obj.kind}/${obj.metadata.name} ${type} ${reason}: ${message}`);
    },
  };
  return { api, calls, events };
}

describe('removeNode', () => {
  const node = fakeNode('pool-1', { group: 'pool' });
  const pods = [makePod('web-1', { nodeName: 'pool-1' })];

  it('taints, evicts and deletes the machine (its Node is the cloud\'s to remove), with the autoscaler events', async () => {
    const provider = new FakeProvider([{ id: 'pool', min: 1, max: 3, target: 2 }]);
    const group = provider.groups[0]!;
    const clock = new FakeClock();
    const { api, calls, events } = fakeApi(() => 'evicted');
    const r = await removeNode(node, group, pods, api, { clock, maxPodEvictionMs: 120_000, evictionRetryMs: 10_000, podsGoneTimeoutMs: 60_000 });
    expect(r).toEqual({ removed: true });
    expect(calls).toEqual(['taint pool-1', 'evict web-1: evicted']);
    expect(group.deleted).toEqual(['pool-1']);
    expect(group.target).toBe(1);
    expect(events).toEqual([
      'Node/pool-1 Normal ScaleDown: marked the node as toBeDeleted/unschedulable',
      'Pod/web-1 Normal ScaleDown: deleting pod for node scale down',
    ]);
  });

  it('a PodDisruptionBudget (429 on every try) blocks the drain until the deadline: the node stays, untainted', async () => {
    const provider = new FakeProvider([{ id: 'pool', min: 1, max: 3, target: 2 }]);
    const group = provider.groups[0]!;
    const clock = new FakeClock();
    const { api, calls, events } = fakeApi(() => 'blocked');
    const sleep = async (ms: number) => void (await clock.advance(ms));
    const r = await removeNode(node, group, pods, api, { clock, maxPodEvictionMs: 30_000, evictionRetryMs: 10_000, podsGoneTimeoutMs: 60_000, sleep });
    expect(r.removed).toBe(false);
    expect(r.error).toContain("violate the pod's disruption budget");
    expect(calls.filter((c) => c.startsWith('evict')).length).toBe(4); // at 0, 10, 20 and 30 s
    expect(calls.at(-1)).toBe('untaint pool-1');
    expect(group.deleted).toEqual([]);
    expect(group.target).toBe(2);
    expect(events.at(-1)).toBe('Node/pool-1 Warning ScaleDownFailed: failed to drain the node, aborting ScaleDown');
  });
});
