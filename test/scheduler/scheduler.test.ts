// kube-scheduler as a real process against a real kube-apiserver: placement, exact failure messages,
// spreading, anti-affinity, wake-up on node add, multiple profiles.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type Pod } from '@kemu/api';
import { waitFor } from '@kemu/base/testing/processes';
import { createNode, createPod, eventsFor, podSpec, startEnv, waitBound, type Env } from './cluster.ts';

let env: Env;

const TWO_PROFILES = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
- schedulerName: default-scheduler
- schedulerName: packer
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
`;

beforeAll(async () => {
  env = await startEnv();
  await createNode(env.client, 'control-plane', { labels: { 'node-role.kubernetes.io/control-plane': '' }, taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] });
  await createNode(env.client, 'worker-1', { cpu: '2', labels: { 'topology.kubernetes.io/zone': 'a', disk: 'ssd' } });
  await createNode(env.client, 'worker-2', { cpu: '2', labels: { 'topology.kubernetes.io/zone': 'b' } });
  env.startScheduler('scheduler-0', ['--leader-elect=false'], TWO_PROFILES);
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

describe('kube-scheduler', () => {
  it('binds a pod to the node its nodeSelector names and records Scheduled', async () => {
    await createPod(env.client, podSpec('ssd', { nodeSelector: { disk: 'ssd' } }));
    expect(await waitBound(env.client, 'ssd')).toBe('worker-1');
    const ev = await waitFor('Scheduled event', async () => (await eventsFor(env.client, 'ssd')).find((e) => e.reason === 'Scheduled'));
    expect(ev.message).toBe('Successfully assigned default/ssd to worker-1');
    expect(ev.source?.component).toBe('default-scheduler');
    const pod = await env.client.get<Pod>(R.pods, 'default', 'ssd');
    expect(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
  });

  it('a pod that fits nowhere gets the exact FailedScheduling message and PodScheduled=False', async () => {
    await createPod(env.client, podSpec('huge', { cpu: '3' }));
    const msg =
      '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod..';
    const ev = await waitFor('FailedScheduling event', async () => (await eventsFor(env.client, 'huge')).find((e) => e.reason === 'FailedScheduling'));
    expect(ev.type).toBe('Warning');
    expect(ev.message).toBe(msg);
    const cond = await waitFor('PodScheduled=False', async () =>
      (await env.client.get<Pod>(R.pods, 'default', 'huge')).status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False'),
    );
    expect(cond).toMatchObject({ reason: 'Unschedulable', message: msg });
  });

  it('spreads pods evenly across zones', async () => {
    const names = [0, 1, 2, 3].map((i) => `spread-${i}`);
    for (const n of names)
      await createPod(
        env.client,
        podSpec(n, {
          labels: { app: 'spread' },
          topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'spread' } } }],
        }),
      );
    const nodes = await Promise.all(names.map((n) => waitBound(env.client, n)));
    expect(nodes.filter((n) => n === 'worker-1').length).toBe(2);
    expect(nodes.filter((n) => n === 'worker-2').length).toBe(2);
  });

  it('pods with anti-affinity avoid each other', async () => {
    const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'solo' } }, topologyKey: 'kubernetes.io/hostname' }] } };
    for (const n of ['solo-0', 'solo-1', 'solo-2']) await createPod(env.client, podSpec(n, { labels: { app: 'solo' }, affinity: anti }));
    const a = await waitBound(env.client, 'solo-0');
    const b = await waitBound(env.client, 'solo-1');
    expect(new Set([a, b]).size).toBe(2);
    const ev = await waitFor('FailedScheduling for the third', async () => (await eventsFor(env.client, 'solo-2')).find((e) => e.reason === 'FailedScheduling'));
    expect(ev.message).toContain("2 node(s) didn't match pod anti-affinity rules");
    expect((await env.client.get<Pod>(R.pods, 'default', 'solo-2')).spec.nodeName).toBeUndefined();
  });

  it('a pod waiting for capacity is scheduled within a second of the node being created', async () => {
    await createPod(env.client, podSpec('waiter', { cpu: '6', tolerations: [{ operator: 'Exists' }] }));
    await waitFor('waiter FailedScheduling', async () => (await eventsFor(env.client, 'waiter')).find((e) => e.reason === 'FailedScheduling'));
    // Past the first backoff (1s) so the wake-up is from the node event, not from a timer.
    await new Promise((r) => setTimeout(r, 1100));
    const t0 = Date.now();
    // Big enough for the earlier unschedulable pods (3 cpu) as well.
    await createNode(env.client, 'big-1', { cpu: '16' });
    expect(await waitBound(env.client, 'waiter', 5000)).toBe('big-1');
    const latency = Date.now() - t0;
    console.log(`pod bound ${latency} ms after its node was created`);
    expect(latency).toBeLessThan(1000);
  });

  it('a pod naming the second profile is scheduled by it', async () => {
    await createPod(env.client, podSpec('packed', { schedulerName: 'packer', cpu: '100m' }));
    await waitBound(env.client, 'packed');
    const ev = await waitFor('Scheduled', async () => (await eventsFor(env.client, 'packed')).find((e) => e.reason === 'Scheduled'));
    expect(ev.source?.component).toBe('packer');
  });

  it('pods for unknown schedulers are left alone', async () => {
    await createPod(env.client, podSpec('other', { schedulerName: 'not-mine' }));
    await createPod(env.client, podSpec('marker'));
    await waitBound(env.client, 'marker');
    expect((await env.client.get<Pod>(R.pods, 'default', 'other')).spec.nodeName).toBeUndefined();
  });
});
