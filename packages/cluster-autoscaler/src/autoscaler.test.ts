import { describe, expect, it } from 'vitest';
import type { KubeObject, Node, Pod } from '@kemu/api';
import { FakeClock, silentLogger } from '@kemu/base';
import { makePod } from '@kemu/scheduler-framework/testing/wrappers';
import { Autoscaler, type AutoscalerOptions } from './autoscaler.ts';
import { PredicateChecker } from './simulator/predicates.ts';
import type { ActuatorApi } from './scale-down/actuator.ts';
import { FakeProvider, fakeNode } from './testing/fake-provider.ts';

const OPTIONS: AutoscalerOptions = {
  expanders: ['random'],
  scaleDownEnabled: true,
  delayAfterAddMs: 10_000,
  delayAfterDeleteMs: 1000,
  delayAfterFailureMs: 10_000,
  unneededTimeMs: 10_000,
  utilizationThreshold: 0.5,
  maxNodeProvisionMs: 900_000,
  maxPodEvictionMs: 120_000,
  evictionRetryMs: 1000,
  maxGracefulTerminationSec: 30,
  maxEmptyBulkDelete: 10,
  maxNodesTotal: 0,
  skipNodesWithSystemPods: true,
  skipNodesWithLocalStorage: true,
};

function unschedulable(name: string, cpu: string): Pod {
  const p = makePod(name, { requests: { cpu } });
  p.status = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] };
  return p;
}

function harness(provider: FakeProvider, clock: FakeClock, world: { nodes: Node[]; pods: Pod[] }) {
  const events: string[] = [];
  const actuator: ActuatorApi = {
    addToBeDeletedTaint: async () => undefined,
    removeToBeDeletedTaint: async () => undefined,
    evict: async () => ({ result: 'evicted' }),
    podsLeft: () => [],
    event: () => undefined,
  };
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-autoscaler-status', namespace: 'kube-system' } };
  const statuses: string[] = [];
  const a = new Autoscaler(
    {
      provider,
      checker: new PredicateChecker(clock, silentLogger()),
      clock,
      logger: silentLogger(),
      nodes: () => world.nodes,
      pods: () => world.pods,
      actuator,
      writeStatus: async (t) => (statuses.push(t), cm),
      event: (o, type, reason, message) => events.push(`${o.kind}/${o.metadata.name} ${reason}: ${message}`),
      random: () => 0,
    },
    OPTIONS,
  );
  // The machines the cloud deleted (their Nodes are the cloud's to remove).
  return { a, events, deleted: provider.groups[0]?.deleted ?? [], statuses };
}

describe('Autoscaler.runOnce', () => {
  it('a new leader reads the target from the cloud: the scale-up in flight is not asked for twice', async () => {
    const provider = new FakeProvider([{ id: 'pool', min: 1, max: 5, target: 1, cpu: '2' }]);
    const clock = new FakeClock();
    const world = { nodes: [fakeNode('pool-0', { group: 'pool', cpu: '2' })], pods: [unschedulable('web', '1500m'), { ...makePod('busy', { requests: { cpu: '1' }, nodeName: 'pool-0' }) }] };
    const first = harness(provider, clock, world);
    await first.a.runOnce();
    expect(provider.groups[0]!.target).toBe(2);
    expect(first.events).toContain('Pod/web TriggeredScaleUp: pod triggered scale-up: [{pool 1->2 (max: 5)}]');
    expect(first.events).toContain('ConfigMap/cluster-autoscaler-status ScaledUpGroup: Scale-up: setting group pool size to 2 instead of 1 (max: 5)');
    expect(first.statuses.at(-1)).toContain('status: InProgress');

    // The leader dies before pool-1 registers; its successor starts from scratch and scans.
    await clock.advance(5000);
    const second = harness(provider, clock, world);
    await second.a.runOnce();
    await second.a.runOnce();
    expect(provider.groups[0]!.target).toBe(2);
    expect(second.events.filter((e) => e.includes('TriggeredScaleUp'))).toEqual([]);
  });

  it('removes an empty node of the group after the unneeded time, past the cooldown, never below min', async () => {
    const provider = new FakeProvider([{ id: 'pool', min: 1, max: 5, target: 3, cpu: '2' }]);
    const clock = new FakeClock();
    const world = { nodes: ['pool-0', 'pool-1', 'pool-2'].map((n) => fakeNode(n, { group: 'pool', cpu: '2' })), pods: [] as Pod[] };
    const h = harness(provider, clock, world);
    await h.a.runOnce();
    expect(h.deleted).toEqual([]);
    await clock.advance(11_000);
    await h.a.runOnce();
    await h.a.idle();
    // Empty nodes go in one batch, down to the min.
    expect(h.deleted).toEqual(['pool-0', 'pool-1']);
    expect(provider.groups[0]!.target).toBe(1);
    expect(h.events).toContain('ConfigMap/cluster-autoscaler-status ScaleDown: Scale-down: empty node pool-0 removed');
  });
});
