// Three kube-scheduler replicas: one leader on Lease kube-system/kube-scheduler; SIGTERM on the leader
// releases the Lease and another replica takes over within about one retry period; no pod is ever bound
// twice (each pod's nodeName is set once, and it gets exactly one Scheduled event).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type Pod } from '@kemu/api';
import { waitFor } from '@kemu/base/testing/processes';
import { createNode, createPod, eventsFor, newSchedulerHolder, podSpec, schedulerHolder, startEnv, type Env } from './cluster.ts';

let env: Env;
const bindings = new Map<string, string[]>();
const watchStop = new AbortController();

beforeAll(async () => {
  env = await startEnv();
  for (let i = 0; i < 4; i++) await createNode(env.client, `w${i}`, { cpu: '64', pods: '500' });
  // Record every nodeName each pod is ever seen with.
  void (async () => {
    try {
      for await (const ev of env.client.watch<Pod>(R.pods, 'default', { signal: watchStop.signal, resourceVersion: '0' })) {
        const p = ev.object;
        const n = p.spec?.nodeName;
        if (!n || !p.metadata.name) continue;
        const seen = bindings.get(p.metadata.name) ?? [];
        if (seen[seen.length - 1] !== n) seen.push(n);
        bindings.set(p.metadata.name, seen);
      }
    } catch {
      // watch ends at teardown
    }
  })();
  for (const name of ['scheduler-0', 'scheduler-1', 'scheduler-2']) env.startScheduler(name);
}, 60_000);

afterAll(async () => {
  watchStop.abort();
  await env?.stop();
});

describe('kube-scheduler leader election', () => {
  it('one leader; SIGTERM fails over within about a retry period; no pod bound twice', async () => {
    const leader = await waitFor('a leader', () => schedulerHolder(env.client), 20_000);
    expect(['scheduler-0', 'scheduler-1', 'scheduler-2']).toContain(leader);

    const N = 150;
    const create = async (from: number, to: number) => {
      for (let i = from; i < to; i++) await createPod(env.client, podSpec(`p-${i}`, { cpu: '10m' }));
    };
    await create(0, N / 2);
    await waitFor('some pods bound', () => bindings.size >= 10, 20_000);

    const t0 = Date.now();
    const proc = env.schedulers.get(leader);
    const exited = proc?.kill('SIGTERM');
    const next = await waitFor('a new leader', () => newSchedulerHolder(env.client, leader), 10_000, 20);
    const failover = Date.now() - t0;
    console.log(`kube-scheduler fail-over after SIGTERM: ${failover} ms`);
    expect(await exited).toBe(0);
    expect(next).not.toBe(leader);
    // Released on SIGTERM: taken within a retry period (500ms) plus the old leader's drain and slack.
    expect(failover).toBeLessThan(4000);

    await create(N / 2, N);
    await waitFor('all pods bound', () => bindings.size >= N, 30_000);
    for (const [name, nodes] of bindings) expect(nodes, name).toHaveLength(1);
    // One Scheduled event per pod (an aggregated repeat would show count > 1).
    const sample = ['p-0', `p-${N / 2 - 1}`, `p-${N - 1}`];
    for (const name of sample) {
      // Events are recorded asynchronously after the bind: wait until one is there (an empty list is truthy).
      const ev = await waitFor(`Scheduled for ${name}`, async () => {
        const scheduled = (await eventsFor(env.client, name)).filter((e) => e.reason === 'Scheduled');
        return scheduled.length > 0 ? scheduled : undefined;
      });
      expect(ev.length).toBe(1);
      expect(ev[0]?.count ?? 1).toBe(1);
    }
  }, 90_000);
});

describe('kube-scheduler that loses its Lease', () => {
  it('a leader frozen past its lease exits 1 on waking, and another replica leads', async () => {
    const leader = await waitFor('a leader', () => schedulerHolder(env.client), 20_000);
    const proc = env.schedulers.get(leader);
    if (!proc?.child.pid) throw new Error('leader process not found');
    process.kill(proc.child.pid, 'SIGSTOP');
    try {
      await waitFor('another leader', () => newSchedulerHolder(env.client, leader), 15_000, 50);
    } finally {
      process.kill(proc.child.pid, 'SIGCONT');
    }
    expect(await Promise.race([proc.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))])).toBe(1);
    expect(proc.output()).toContain('leaderelection lost');
    await createPod(env.client, podSpec('after-freeze', { cpu: '10m' }));
    await waitFor('after-freeze bound', () => bindings.has('after-freeze'), 20_000);
    expect(bindings.get('after-freeze')).toHaveLength(1);
  }, 60_000);
});
