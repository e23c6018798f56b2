import { describe, expect, it } from 'vitest';
import type { Pod } from '@kemu/api';
import { StatusError } from '@kemu/api';
import { realClock, silentLogger } from '@kemu/base';
import { defaultConfiguration, parseConfigurationText } from '@kemu/scheduler-framework';
import type { KubeSchedulerConfiguration } from '@kemu/scheduler-framework';
import { Scheduler } from './scheduler.ts';
import { fakeClient, makeNode, makePod } from '@kemu/scheduler-framework/testing/wrappers';

function setup(config: KubeSchedulerConfiguration = defaultConfiguration(), bindError?: (name: string) => Error | undefined) {
  const client = fakeClient({ bindError });
  const events: { pod: string; type: string; reason: string; message: string; profile: string }[] = [];
  const pods = new Map<string, Pod>();
  const s = new Scheduler({
    config,
    client,
    clock: realClock,
    logger: silentLogger(),
    event: (pod, type, reason, message, profile) => events.push({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, type, reason, message, profile }),
    currentPod: (k) => pods.get(k),
  });
  const addPod = (p: Pod) => {
    pods.set(`${p.metadata.namespace}/${p.metadata.name}`, p);
    s.addPod(p);
  };
  /** Pops and schedules everything currently active, then waits for binds. */
  const drain = async () => {
    for (;;) {
      if (s.queue.pendingCounts().active - 0 === 0) break;
      const q = await s.queue.pop();
      if (!q) break;
      await s.scheduleOne(q);
    }
    while (s.pendingBinds() > 0) await new Promise((r) => setImmediate(r));
  };
  return { s, client, events, addPod, drain, pods };
}

const cpTaint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' as const };

describe('Scheduler', () => {
  it('binds a pod and records the Scheduled event', async () => {
    const t = setup();
    t.s.addNode(makeNode('worker-1'));
    t.addPod(makePod('x'));
    await t.drain();
    expect(t.client.calls.binds).toEqual([{ namespace: 'default', name: 'x', node: 'worker-1' }]);
    expect(t.events).toContainEqual({ pod: 'default/x', type: 'Normal', reason: 'Scheduled', message: 'Successfully assigned default/x to worker-1', profile: 'default-scheduler' });
  });

  it('records the exact FailedScheduling message and PodScheduled=False', async () => {
    const t = setup();
    t.s.addNode(makeNode('cp', { taints: [cpTaint] }));
    t.s.addNode(makeNode('w1', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } }));
    t.s.addNode(makeNode('w2', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } }));
    t.addPod(makePod('big', { requests: { cpu: '2' } }));
    await t.drain();
    const msg =
      '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod..';
    expect(t.events.find((e) => e.reason === 'FailedScheduling')?.message).toBe(msg);
    const patch = t.client.calls.statusPatches[0]?.status as { conditions: { type: string; status: string; reason: string; message: string }[] };
    expect(patch.conditions[0]).toMatchObject({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: msg });
    expect(t.s.queue.pendingCounts().unschedulable).toBe(1);
  });

  it('an unschedulable pod is retried when a node is added', async () => {
    const t = setup();
    t.s.addNode(makeNode('small', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } }));
    t.addPod(makePod('big', { requests: { cpu: '2' } }));
    await t.drain();
    expect(t.client.calls.binds).toEqual([]);
    t.s.addNode(makeNode('large', { allocatable: { cpu: '8', memory: '8Gi', pods: '10' } }));
    // Still inside its 1s backoff: it goes to backoffQ and comes out when the backoff ends.
    const deadline = Date.now() + 3000;
    while (t.s.queue.pendingCounts().active === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await t.drain();
    expect(t.client.calls.binds).toEqual([{ namespace: 'default', name: 'big', node: 'large' }]);
  });

  it('never double-books: assumed pods count before binds complete', async () => {
    const t = setup();
    t.s.addNode(makeNode('n1', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } }));
    t.s.addNode(makeNode('n2', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } }));
    for (let i = 0; i < 3; i++) t.addPod(makePod(`p${i}`, { requests: { cpu: '600m' } }));
    await t.drain();
    const nodes = t.client.calls.binds.map((b) => b.node).sort();
    expect(nodes).toEqual(['n1', 'n2']);
  });

  it('a 409 on bind forgets the pod without retrying', async () => {
    const t = setup(defaultConfiguration(), () => new StatusError('Conflict', 'Operation cannot be fulfilled on pods/binding "x": pod x is already assigned to node "n9"'));
    t.s.addNode(makeNode('n1'));
    t.addPod(makePod('x'));
    await t.drain();
    const c = t.s.queue.pendingCounts();
    expect(c.active + c.backoff + c.unschedulable).toBe(0);
    expect(t.s.cache.has('default/x')).toBe(false);
    expect(t.events.filter((e) => e.reason === 'FailedScheduling')).toEqual([]);
  });

  it('spreads pods across zones with topology spread constraints', async () => {
    const t = setup();
    for (const [n, z] of [['a1', 'a'], ['a2', 'a'], ['b1', 'b'], ['b2', 'b']]) t.s.addNode(makeNode(n as string, { labels: { zone: z as string } }));
    for (let i = 0; i < 6; i++)
      t.addPod(
        makePod(`w${i}`, {
          labels: { app: 'w' },
          topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'w' } } }],
        }),
      );
    await t.drain();
    const zones = t.client.calls.binds.map((b) => b.node[0]);
    expect(zones.filter((z) => z === 'a').length).toBe(3);
    expect(zones.filter((z) => z === 'b').length).toBe(3);
  });

  it('anti-affinity keeps pods on different nodes', async () => {
    const t = setup();
    for (const n of ['n1', 'n2', 'n3']) t.s.addNode(makeNode(n));
    const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' }] } };
    for (let i = 0; i < 4; i++) t.addPod(makePod(`db${i}`, { labels: { app: 'db' }, affinity: anti }));
    await t.drain();
    expect(new Set(t.client.calls.binds.map((b) => b.node)).size).toBe(3);
    expect(t.client.calls.binds.length).toBe(3);
    expect(t.events.find((e) => e.reason === 'FailedScheduling')?.message).toBe(
      "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..",
    );
  });

  it('a second profile schedules pods that name it', async () => {
    const cfg = parseConfigurationText(`
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: { leaderElect: false }
profiles:
- schedulerName: default-scheduler
- schedulerName: bin-packer
  plugins:
    score:
      disabled: [{ name: NodeResourcesBalancedAllocation }]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy: { type: MostAllocated }
`);
    const t = setup(cfg);
    t.s.addNode(makeNode('empty', { allocatable: { cpu: '4', memory: '4Gi', pods: '10' } }));
    t.s.addNode(makeNode('busy', { allocatable: { cpu: '4', memory: '4Gi', pods: '10' } }));
    t.s.addPod(makePod('existing', { nodeName: 'busy', requests: { cpu: '2', memory: '2Gi' } }));
    t.addPod(makePod('packed', { schedulerName: 'bin-packer', requests: { cpu: '1', memory: '1Gi' } }));
    t.addPod(makePod('ignored', { schedulerName: 'someone-else' }));
    await t.drain();
    expect(t.client.calls.binds).toEqual([{ namespace: 'default', name: 'packed', node: 'busy' }]);
    expect(t.events.find((e) => e.reason === 'Scheduled')?.profile).toBe('bin-packer');
  });

  it('preempts a lower-priority pod and nominates the node; preemptionPolicy Never does not', async () => {
    const t = setup();
    t.s.addNode(makeNode('n1', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } }));
    t.s.addPod(makePod('low', { nodeName: 'n1', priority: 0, requests: { cpu: '800m' } }));
    t.addPod(makePod('never', { priority: 100, preemptionPolicy: 'Never', requests: { cpu: '500m' } }));
    await t.drain();
    expect(t.client.calls.deletes).toEqual([]);
    expect(t.events.find((e) => e.pod === 'default/never')?.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never..',
    );
    t.addPod(makePod('high', { priority: 100, requests: { cpu: '500m' } }));
    await t.drain();
    expect(t.client.calls.deletes).toEqual(['default/low']);
    const nnn = t.client.calls.statusPatches.find((p) => p.pod === 'default/high')?.status.nominatedNodeName;
    expect(nnn).toBe('n1');
  });
});
