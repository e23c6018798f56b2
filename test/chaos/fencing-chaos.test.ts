// Fencing under a freeze: a kube-scheduler (binding a stream of pods) and a kube-controller-manager (filling a
// ReplicaSet) leader, each reaching the apiserver through a counting proxy, is frozen with SIGSTOP while
// writes of its are in flight (held in the proxy, as a slow network would), replaced by its follower, and
// woken with SIGCONT once the writes in flight have gone on to the apiserver. None of its writes may be
// accepted after the hand-over: the held ones meet a Lease that has moved on (409 from the apiserver); after
// waking it starts no write (its renew deadline has passed on its own clock), those it had started before
// the freeze whose bytes leave only now are refused like the held ones, and it exits 1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type Deployment, type Pod } from '@kemu/api';
import { waitFor } from '@kemu/base/testing/processes';
import { SHORT_LEASE, leaseHolderName, startSingleApiserver, type SingleApiserver } from '../support/single-apiserver.ts';
import { createNode, podSpec } from '../scheduler/cluster.ts';
import { PodTracker } from '../controller-manager/cluster.ts';
import { freezeRound, LostBeforeFreeze, marks, steadyLeader, type FreezeRound, type SteadyLeader } from './freeze-round.ts';
import { startProxied, type LeaderElectedKind, type ProxiedComponent } from './proxied-component.ts';
import type { ProxiedRequest } from './counting-proxy.ts';
import { deployment } from './workloads.ts';

let env: SingleApiserver;
const components: ProxiedComponent[] = [];

beforeAll(async () => {
  env = await startSingleApiserver({ prefix: 'kemu-fencing-', qps: 1000, burst: 2000 });
}, 60_000);
afterAll(async () => {
  await Promise.all(components.map((c) => c.stop()));
  await env?.stop([]);
}, 60_000);

/** Two replicas, each through its own proxy; `<prefix>-0` is made the leader. */
async function pair(kind: LeaderElectedKind, prefix: string, lease: string): Promise<readonly [ProxiedComponent, ProxiedComponent]> {
  const first = await startProxied(kind, `${prefix}-0`, env.url, env.dir, SHORT_LEASE);
  components.push(first);
  await waitFor(`${first.name} leading`, async () => (await leaseHolderName(env.client, lease)) === first.name, 60_000, 20);
  const second = await startProxied(kind, `${prefix}-1`, env.url, env.dir, SHORT_LEASE);
  components.push(second);
  return [first, second];
}

/** Adds what the replicas did to a failure: their exits, their answers by status, the end of their logs. */
function failWith(pair: readonly ProxiedComponent[]) {
  return (e: unknown): never => {
    const parts = pair.map((c) => {
      const answers = new Map<string, number>();
      for (const q of c.proxy.requests) {
        const k = `${q.status ?? 'held'} ${q.method} ${q.path.split('?')[0]}`;
        answers.set(k, (answers.get(k) ?? 0) + 1);
      }
      const top = [...answers].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([k, n]) => `${n}× ${k}`);
      return `${c.name} exit: ${String(c.proc.child.exitCode ?? c.proc.child.signalCode ?? 'running')}\n${top.join('\n')}\n${c.proc.output().slice(-2000)}`;
    });
    throw new Error(`${String(e)}\n${parts.join('\n')}`);
  };
}

function steady(s: SteadyLeader): SteadyLeader {
  if (s.restarted.length) console.log(`restarted after an unplanned hand-over (a starved leader lost its Lease): ${s.restarted.join(', ')}`);
  return s;
}

/**
 * A steady leader doing `work`, then the freeze round on it. A leader that a starved machine made lose its Lease
 * by itself between the two gets one more round (the restarted replica becomes the follower).
 */
async function steadyThenFreeze(lease: string, replicas: readonly [ProxiedComponent, ProxiedComponent], since: ReadonlyMap<ProxiedComponent, number>, work: (q: ProxiedRequest) => boolean, minWrites: number) {
  for (let attempt = 0; ; attempt++) {
    const { leader: old, follower: next } = steady(await steadyLeader(env.client, lease, replicas, since, work, minWrites).catch(failWith(replicas)));
    try {
      return { old, next, r: await freezeRound({ client: env.client, lease, name: old.name, proc: old.proc, proxy: old.proxy }) };
    } catch (e) {
      if (!(e instanceof LostBeforeFreeze) || attempt > 0) throw e;
      console.log(`${String(e)} (a starved machine); another round`);
    }
  }
}

/**
 * After the round, as a restart policy would: a replica that exited (the fenced leader exits 1; on a starved machine
 * the new leader can lose its own Lease and exit too) runs again, so that someone finishes the work.
 */
async function restartExited(replicas: readonly ProxiedComponent[]): Promise<void> {
  for (const c of replicas) if (c.proc.child.exitCode !== null || c.proc.child.signalCode !== null) await c.restart();
}

function report(what: string, r: FreezeRound): void {
  const answers = [...r.answers].map(([k, n]) => `${n}× ${k}`).join(', ');
  console.log(
    `${what}: hand-over ${r.handoverMs} ms after SIGSTOP; ${r.held} writes held in flight at the freeze (${r.heldAccepted} accepted), ` +
      `${r.afterWake} sent after SIGCONT (${r.afterWakeAccepted} accepted${r.afterWake ? `: ${r.afterWakeWrites.join(', ')}` : ''}); accepted after the hand-over: ${r.acceptedAfterHandover}; exit ${r.exit}; answers: ${answers || 'none'}`,
  );
}

describe('fencing: a frozen leader has no write accepted after the hand-over', () => {
  it('kube-scheduler: binds in flight at the freeze, and any leaving after the wake, are refused; every pod is bound after the hand-over', async () => {
    for (const n of ['fence-node-a', 'fence-node-b']) await createNode(env.client, n, { pods: '1000' });
    const replicas = await pair('scheduler', 'fence-sched', 'kube-scheduler');
    const since = marks(replicas);
    const N = 400;
    for (let i = 0; i < N; i += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => env.client.create<Pod>(R.pods, 'default', podSpec(`fence-${i + k}`, { labels: { fence: 'sched' } }))));
    // Binding 400 pods at 50/s (after a burst of 100): there are always binds on their way.
    const { old, next, r } = await steadyThenFreeze('kube-scheduler', replicas, since, (q) => q.path.endsWith('/binding'), 30);
    report('kube-scheduler', r);
    expect(r.newHolder).toBe(next.name);
    expect(r.held).toBeGreaterThan(0);
    expect(r.acceptedAfterHandover).toBe(0);
    expect(r.exit).toBe(1);
    expect(old.proc.output()).toContain('leaderelection lost');

    const unbound = async () => (await env.client.list<Pod>(R.pods, 'default', { labelSelector: 'fence=sched' })).items.filter((p) => !p.spec.nodeName).length;
    await waitFor('every pod bound', async () => {
      await restartExited(replicas);
      return (await unbound()) === 0;
    }, 120_000, 200).catch(failWith(replicas));
  }, 240_000);

  it('kube-controller-manager: pod creates in flight at the freeze, and any leaving after the wake, are refused; the ReplicaSet never overshoots', async () => {
    await env.client.create(R.namespaces, undefined, { metadata: { name: 'fencing' } });
    const pods = new PodTracker(env.client, 'fencing', false);
    let most = 0;
    pods.onChange((t) => (most = Math.max(most, t.active('filler-').length)));
    try {
      const replicas = await pair('controller-manager', 'fence-kcm', 'kube-controller-manager');
      const since = marks(replicas);
      const N = 150;
      await env.client.create<Deployment>(R.deployments, 'fencing', deployment('filler', N) as Deployment);
      // Creating 150 pods at 20/s (after a burst of 30): there are always creates on their way.
      const creates = (r: { method: string; path: string }) => r.method === 'POST' && /\/namespaces\/fencing\/pods(\?|$)/.test(r.path);
      const { old, next, r } = await steadyThenFreeze('kube-controller-manager', replicas, since, creates, 20);
      report('kube-controller-manager', r);
      expect(r.newHolder).toBe(next.name);
      expect(r.held).toBeGreaterThan(0);
      expect(r.acceptedAfterHandover).toBe(0);
      expect(r.exit).toBe(1);

      await waitFor(`${N} pods`, async () => {
        await restartExited(replicas);
        return pods.active('filler-').length === N;
      }, 120_000, 100).catch(failWith(replicas));
      // A pod written after everything the old leader could have written: once the watch shows it, it has shown those.
      await env.client.create<Pod>(R.pods, 'fencing', podSpec('marker'));
      await waitFor('the marker pod in the watch', () => pods.live.has('marker'), 30_000, 20);
      expect(most, 'pods at the busiest moment').toBe(N);
      expect(pods.active('filler-')).toHaveLength(N);
    } finally {
      pods.stop();
    }
  }, 240_000);
});
