// Three kube-controller-manager processes behind one Lease: exactly one leader, fail-over on SIGKILL within
// lease duration + 2 × retry period, on SIGTERM likewise once the lease expires (kube-controller-manager does
// not release its Lease, as in Kubernetes; --leader-elect-release-on-cancel opts in to a release and a
// hand-over within about one retry period), a restarted process stays a follower, leaseTransitions counts
// each change, and a leader that loses its Lease (frozen past it) exits 1 with "leaderelection lost".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type CoreEvent, type Pod } from '@kemu/api';
import { LeaseWatch } from '../lab/api.ts';
import { SHORT_LEASE, holderName, lease, newHolderName, startEnv, waitFor, type Env } from './cluster.ts';

const LEASE_MS = 2000;
const RETRY_MS = 500;
// Scheduling slack for processes on a busy 2-core machine (request latency, timers, jitter).
const SLACK_MS = 1500;

let env: Env;
beforeAll(async () => {
  env = await startEnv();
  await Promise.all(['kcm-a', 'kcm-b', 'kcm-c'].map((n) => env.startManager(n)));
}, 60_000);
afterAll(async () => {
  await env?.stop();
});

async function currentLeader(): Promise<string> {
  return waitFor('a leader', async () => holderName(env.client), 30_000, 50);
}

async function nextLeader(old: string, ms: number): Promise<{ name: string; ms: number }> {
  const t0 = Date.now();
  const name = await waitFor(`a leader other than ${old}`, () => newHolderName(env.client, old), ms, 25);
  return { name, ms: Date.now() - t0 };
}

describe('kube-controller-manager leader election', () => {
  it('has exactly one leader, and the others stay followers', async () => {
    const leader = await currentLeader();
    expect(['kcm-a', 'kcm-b', 'kcm-c']).toContain(leader);
    const l = await lease(env.client);
    expect(l?.spec?.leaseDurationSeconds).toBe(2);
    // Over several lease durations the holder does not change while the leader is healthy.
    const seen = new Set<string>();
    const until = Date.now() + 3 * LEASE_MS;
    while (Date.now() < until) {
      seen.add(await holderName(env.client));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect([...seen]).toEqual([leader]);
  }, 30_000);

  it('only the leader runs controllers (every pod creation event comes from it)', async () => {
    const leader = await currentLeader();
    await env.client.create(R.replicasets, 'default', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'only-leader' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'only-leader' } },
        template: { metadata: { labels: { app: 'only-leader' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
    });
    await waitFor('3 pods', async () => (await env.client.list<Pod>(R.pods, 'default', { labelSelector: 'app=only-leader' })).items.length === 3, 20_000, 100);
    const events = await waitFor('3 SuccessfulCreate events', async () => {
      const evs = (await env.client.list<CoreEvent>(R.events, 'default')).items.filter((e) => e.reason === 'SuccessfulCreate' && e.involvedObject.name === 'only-leader');
      return evs.length === 3 ? evs : undefined;
    }, 20_000, 100);
    expect(new Set(events.map((e) => `${e.source?.component ?? ''}@${e.source?.host ?? ''}`))).toEqual(new Set([`replicaset-controller@${leader}`]));
  }, 30_000);

  it('fails over after SIGKILL within lease duration + 2 × retry period', async () => {
    const leader = await currentLeader();
    const before = (await lease(env.client))?.spec?.leaseTransitions ?? 0;
    await env.managers.get(leader)?.kill('SIGKILL');
    const next = await nextLeader(leader, 20_000);
    console.log(`SIGKILL failover: ${next.ms} ms (${leader} → ${next.name})`);
    expect(next.ms).toBeLessThanOrEqual(LEASE_MS + 2 * RETRY_MS + SLACK_MS);
    expect((await lease(env.client))?.spec?.leaseTransitions).toBe(before + 1);
    // The killed one comes back and stays a follower.
    await env.startManager(leader);
    const until = Date.now() + 3 * LEASE_MS;
    while (Date.now() < until) {
      expect(await holderName(env.client)).toBe(next.name);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 40_000);

  it('after SIGTERM exits 0 without releasing the Lease; a follower takes it once the lease has expired', async () => {
    const leader = await currentLeader();
    const before = (await lease(env.client))?.spec?.leaseTransitions ?? 0;
    const proc = env.managers.get(leader);
    const watch = new LeaseWatch(env.url, 'kube-controller-manager');
    await watch.start();
    try {
      const t0 = Date.now();
      proc?.child.kill('SIGTERM');
      const next = await waitFor('a new holder', () => watch.takeover(leader, t0), 20_000, 10);
      const ms = next.at - t0;
      console.log(`SIGTERM failover: ${ms} ms (${leader} → ${next.holder.split('_')[0]})`);
      expect(await proc?.exited).toBe(0);
      expect(watch.history.filter((h) => h.at >= t0 && h.holder === ''), 'the Lease was released (holder "")').toEqual([]);
      // The last renewal came at most a (jittered) retry period before the signal; nobody may take over
      // before a whole lease duration has passed since it.
      expect(ms).toBeGreaterThanOrEqual(LEASE_MS - 1.2 * RETRY_MS);
      expect(ms).toBeLessThanOrEqual(LEASE_MS + 2 * RETRY_MS + SLACK_MS);
    } finally {
      watch.stop();
    }
    expect((await lease(env.client))?.spec?.leaseTransitions).toBe(before + 1);
    await env.startManager(leader);
  }, 40_000);

  it('a leader that loses its Lease stops and exits 1 with "leaderelection lost"', async () => {
    const leader = await currentLeader();
    const proc = env.managers.get(leader);
    if (!proc) throw new Error('no process for the leader');
    proc.child.kill('SIGSTOP');
    try {
      await nextLeader(leader, 20_000);
    } finally {
      proc.child.kill('SIGCONT');
    }
    const code = await Promise.race([proc.exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))]);
    expect(code).toBe(1);
    expect(proc.output()).toContain('leaderelection lost');
  }, 60_000);

  it('with --leader-elect-release-on-cancel, SIGTERM releases the Lease and a follower takes it within about a retry period', async () => {
    // Only opted-in processes from here on: the others are killed (no release), an opted-in one leads.
    for (const [name, p] of env.managers) {
      p.child.kill('SIGKILL');
      await p.exited;
      env.managers.delete(name);
    }
    const optIn = [...SHORT_LEASE, '--leader-elect-release-on-cancel'];
    await env.startManager('kcm-r1', optIn);
    await waitFor('kcm-r1 leading', async () => ((await holderName(env.client)) === 'kcm-r1' ? true : undefined), 30_000, 50);
    const follower = await env.startManager('kcm-r2', optIn);
    await waitFor('kcm-r2 following', async () => (/attempting to acquire leader lease/i.test(follower.output()) ? true : undefined), 30_000, 50);
    const proc = env.managers.get('kcm-r1');
    const watch = new LeaseWatch(env.url, 'kube-controller-manager');
    await watch.start();
    try {
      const t0 = Date.now();
      proc?.child.kill('SIGTERM');
      const released = await waitFor('the Lease released', () => watch.history.find((h) => h.at >= t0 && h.holder === ''), 10_000, 10);
      const next = await waitFor('kcm-r2 leading', () => watch.takeover('kcm-r1', t0), 10_000, 10);
      console.log(`SIGTERM with release: released after ${released.at - t0} ms, kcm-r2 leading ${next.at - released.at} ms later`);
      expect(next.holder.split('_')[0]).toBe('kcm-r2');
      expect(next.at - released.at).toBeLessThanOrEqual(RETRY_MS + SLACK_MS);
      expect(await proc?.exited).toBe(0);
    } finally {
      watch.stop();
    }
  }, 60_000);
});
