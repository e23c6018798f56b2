// Chaos for the leader-elected components, on one process lab: the controller-manager leader stopped, killed
// and frozen (SIGSTOP past its lease) while a Deployment scales; the scheduler leader stopped while 500 pods
// wait; a worker stopped until its node goes Unknown and its pods move. Everything is observed through watches
// (the Lease's holder at every change, every pod event), never through sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { signalGroup } from '@kemu/kemu';
import { startLab, missing, type Lab } from '../lab/lab.ts';
import { call, rec, LeaseWatch, PodWatch } from '../lab/api.ts';
import { deployment, scale } from './workloads.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker');
if (skip) console.warn(`test/chaos/leader-chaos.test.ts: ${skip}`);

const LEASE_MS = 3_000;
const RETRY_MS = 500;
/** Head-room for a loaded 2-core machine on top of what the protocol allows. */
const SLACK_MS = 2_500;

async function create(lab: Lab, path: string, body: unknown): Promise<void> {
  const r = await call(lab.server, 'POST', path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
}

async function namespace(lab: Lab, name: string): Promise<void> {
  await create(lab, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

function component(lab: Lab, name: string) {
  const c = lab.state().components.find((x) => x.name === name);
  if (!c) throw new Error(`no component ${name}`);
  return c;
}

async function kemu(lab: Lab, ...args: string[]): Promise<void> {
  const r = await lab.kemu(...args);
  if (r.code !== 0) throw new Error(`kemu ${args.join(' ')}: ${r.code} ${r.stderr}`);
}

describe.skipIf(skip)('leader chaos (processes)', () => {
  let lab: Lab;
  let cmLease: LeaseWatch;
  let schedLease: LeaseWatch;
  beforeAll(async () => {
    lab = await startLab({
      apiservers: 2,
      controllerManagers: 3,
      schedulers: 2,
      workers: 3,
      leaseDuration: `${LEASE_MS}ms`,
      renewDeadline: '2s',
      retryPeriod: `${RETRY_MS}ms`,
      nodeMonitorGracePeriod: '6s',
      nodeMonitorPeriod: '1s',
      nodeStatusUpdateFrequency: '1s',
      nodeLeaseDurationSeconds: 4,
      // 500 waiting pods must fit on 3 workers (the kubelet's default is 110 each)
      maxPods: 250,
    });
    await lab.waitRunning(undefined, 120_000);
    cmLease = new LeaseWatch(lab.server, 'kube-controller-manager');
    schedLease = new LeaseWatch(lab.server, 'kube-scheduler');
    await cmLease.start();
    await schedLease.start();
  }, 150_000);
  afterAll(async () => {
    cmLease?.stop();
    schedLease?.stop();
    await lab?.down();
  }, 60_000);

  const leader = (w: LeaseWatch) => waitFor(`a ${w.lease} leader`, () => w.component(), 60_000, 50);

  it('SIGTERM and SIGKILL hand the controller-manager Lease over once it has expired (no release, as in Kubernetes); the scale never overshoots', async () => {
    await namespace(lab, 'scaling');
    let limit = 10;
    let over = 0;
    const pods = new PodWatch(lab.server, 'scaling', 'app=scaler', (w) => (over = Math.max(over, w.live().length - limit)));
    await pods.start();
    try {
      await create(lab, '/apis/apps/v1/namespaces/scaling/deployments', deployment('scaler', 10));
      const first = await leader(cmLease);

      // SIGTERM while the ReplicaSet is being filled: the leader drains and exits 0 without releasing the
      // Lease (kube-controller-manager has no ReleaseOnCancel); a follower takes it once it has expired.
      const tStop = Date.now();
      await kemu(lab, 'stop', first);
      // `kemu stop` returns once the process has exited; its last renewal came before that, so the upper bound
      // is measured from here (a loaded machine can take seconds just to start the kemu CLI).
      const stopped = Date.now();
      const second = await waitFor('a new holder', () => cmLease.takeover(first, tStop), LEASE_MS + RETRY_MS + 20_000, 20);
      console.log(`SIGTERM: stop → new holder ${second.holder.split('_')[0]} in ${second.at - tStop} ms (${second.at - stopped} ms after the exit)`);
      expect(cmLease.history.filter((h) => h.at >= tStop && h.holder === ''), 'the Lease was released').toEqual([]);
      expect(second.at - tStop).toBeGreaterThanOrEqual(LEASE_MS - 1.2 * RETRY_MS);
      expect(second.at - stopped).toBeLessThan(LEASE_MS + 2 * RETRY_MS + SLACK_MS);
      expect(component(lab, first).lastExit).toBe('exit code 0');
      await waitFor('10 pods', () => pods.live().length === 10, 60_000);

      // SIGKILL mid-scale: nobody releases; a follower takes over once the lease has expired.
      limit = 30;
      await scale(lab, 'scaling', 'scaler', 30);
      const secondName = second.holder.split('_')[0]!;
      const tKill = Date.now();
      await kemu(lab, 'kill', secondName);
      const dead = Date.now();
      const third = await waitFor('a holder after the kill', () => cmLease.takeover(secondName, tKill), LEASE_MS + RETRY_MS + 20_000, 20);
      console.log(`SIGKILL: process gone → new holder ${third.holder.split('_')[0]} in ${third.at - dead} ms`);
      expect(third.at - dead).toBeLessThan(LEASE_MS + RETRY_MS + SLACK_MS);
      expect(cmLease.history.filter((h) => h.at >= tKill && h.holder === '')).toEqual([]);
      await waitFor('30 pods', () => pods.live().length === 30, 90_000);
      expect(over, 'pods beyond the desired count at some moment').toBeLessThanOrEqual(0);

      for (const n of [first, secondName]) await kemu(lab, 'start', n);
      await lab.waitRunning([first, secondName], 60_000);
    } finally {
      pods.stop();
    }
  }, 240_000);

  it('a leader frozen past its lease exits non-zero on SIGCONT and comes back as a follower; never a duplicate pod', async () => {
    await namespace(lab, 'frozen');
    let max = 0;
    const frozenPods = (w: PodWatch) => w.live().filter((p) => p.labels.app === 'frozen');
    const pods = new PodWatch(lab.server, 'frozen', '', (w) => (max = Math.max(max, frozenPods(w).length)));
    await pods.start();
    try {
      const frozen = await leader(cmLease);
      const restartsBefore = component(lab, frozen).restarts;
      const tPause = Date.now();
      await kemu(lab, 'pause', frozen);
      const next = await waitFor('a holder while frozen', () => cmLease.takeover(frozen, tPause), LEASE_MS + RETRY_MS + 20_000, 20);
      const nextName = next.holder.split('_')[0]!;
      console.log(`SIGSTOP: new holder ${nextName} ${next.at - tPause} ms after the pause`);
      await create(lab, '/apis/apps/v1/namespaces/frozen/deployments', deployment('frozen', 5));
      await waitFor('5 pods', () => frozenPods(pods).length === 5, 60_000);

      const tCont = Date.now();
      await kemu(lab, 'unpause', frozen);
      // It notices the lost lease, exits 1, and the supervisor brings it back (as a follower).
      await waitFor(`${frozen} restarted`, () => {
        const c = component(lab, frozen);
        return c.restarts > restartsBefore && c.state === 'running';
      }, 60_000, 100);
      expect(component(lab, frozen).lastExit).toBe('exit code 1');
      expect(cmLease.component()).toBe(nextName);
      expect(cmLease.history.filter((h) => h.at >= tCont && h.holder.startsWith(`${frozen}_`))).toEqual([]);

      // Whatever the old process wrote before it exited is in the store before this marker, so once the watch
      // has delivered the marker it has delivered every pod the old leader might have created.
      await create(lab, '/api/v1/namespaces/frozen/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'marker', labels: { marker: 'yes' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
      await waitFor('the marker pod in the watch', () => pods.pods.has('marker'), 30_000);
      expect(max, 'frozen pods at the busiest moment').toBe(5);
      expect(frozenPods(pods)).toHaveLength(5);
    } finally {
      pods.stop();
    }
  }, 180_000);

  it('every one of 500 waiting pods is scheduled, by the new leader after a scheduler leader stop, and none is bound twice', async () => {
    await namespace(lab, 'waiting');
    const rebound: string[] = [];
    const pods = new PodWatch(lab.server, 'waiting', 'batch=waiting', (_w, ev) => {
      if (ev.prev?.nodeName && ev.obj.nodeName !== ev.prev.nodeName) rebound.push(`${ev.obj.name}: ${ev.prev.nodeName} → ${ev.obj.nodeName ?? '(none)'}`);
    });
    await pods.start();
    const bound = () => [...pods.pods.values()].filter((p) => p.nodeName).length;
    try {
      // Hold every scheduler down so the pods pile up, then bring them back.
      const schedulers = lab.state().components.filter((c) => c.kind === 'scheduler').map((c) => c.name);
      await Promise.all(schedulers.map((s) => kemu(lab, 'stop', s)));
      const pod = (i: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `wait-${i}`, labels: { batch: 'waiting' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
      for (let i = 0; i < 500; i += 25) await Promise.all(Array.from({ length: 25 }, (_, k) => create(lab, '/api/v1/namespaces/waiting/pods', pod(i + k))));
      await waitFor('500 pods in the watch', () => pods.pods.size === 500, 30_000);
      expect(bound()).toBe(0);
      const tStart = Date.now();
      for (const s of schedulers) await kemu(lab, 'start', s);
      const first = await waitFor('a scheduler leader', () => schedLease.history.find((h) => h.at >= tStart && h.holder), 60_000, 20);
      const firstName = first.holder.split('_')[0]!;

      // SIGTERM the leader the moment it has bound something (straight to its process group, as `kemu stop`
      // does, without the CLI's start-up time): the rest is left to the new one.
      await waitFor('the first binding', () => bound() > 0, 60_000, 5);
      const tStop = Date.now();
      signalGroup(component(lab, firstName).pid!, 'SIGTERM');
      const boundAtStop = bound();
      const next = await waitFor('a new scheduler leader', () => schedLease.takeover(firstName, tStop), 30_000, 20);
      const boundAtTakeover = bound();
      console.log(`scheduler: ${boundAtStop} of 500 bound at the SIGTERM to ${firstName}, ${boundAtTakeover} when ${next.holder.split('_')[0]} took over ${next.at - tStop} ms later; Lease: ${JSON.stringify(schedLease.history.filter((h) => h.at >= tStop).map((h) => [h.at - tStop, h.holder.split('_')[0]]))}`);
      expect(boundAtTakeover).toBeLessThan(500);
      await waitFor(`${firstName} exited`, () => component(lab, firstName).state === 'exited', 30_000, 50);
      expect(component(lab, firstName).lastExit).toBe('exit code 0');
      await waitFor('all 500 scheduled', () => bound() === 500, 180_000, 200);
      expect(rebound).toEqual([]);
      await kemu(lab, 'start', firstName);
      await lab.waitRunning([firstName], 60_000);
    } finally {
      pods.stop();
      await call(lab.server, 'DELETE', '/api/v1/namespaces/waiting/pods?gracePeriodSeconds=0').catch(() => undefined);
    }
  }, 360_000);

  it('a stopped worker goes Unknown and its pods are evicted and rescheduled', async () => {
    await namespace(lab, 'moving');
    // Evicted 2 s after the node is tainted unreachable (the DefaultTolerationSeconds admission would give 300 s).
    const tolerate = { tolerations: ['unreachable', 'not-ready'].map((t) => ({ key: `node.kubernetes.io/${t}`, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2 })) };
    await create(lab, '/apis/apps/v1/namespaces/moving/deployments', deployment('mover', 6, tolerate));
    const pods = new PodWatch(lab.server, 'moving', 'app=mover');
    await pods.start();
    const readyOf = async (node: string) => {
      const r = await call(lab.server, 'GET', `/api/v1/nodes/${node}`);
      const conds = rec(rec(r.body).status).conditions;
      return Array.isArray(conds) ? String(conds.map(rec).find((c) => c.type === 'Ready')?.status) : '';
    };
    try {
      await waitFor('6 pods running', () => pods.live().filter((p) => p.phase === 'Running').length === 6, 120_000, 200);
      const on = (n: string) => pods.live().filter((p) => p.nodeName === n);
      const victim = ['worker-0', 'worker-1', 'worker-2'].sort((a, b) => on(b).length - on(a).length)[0]!;
      const evicted = on(victim).map((p) => p.name);
      expect(evicted.length).toBeGreaterThan(0);
      await kemu(lab, 'stop', victim);
      await waitFor(`${victim} Ready=Unknown`, async () => (await readyOf(victim)) === 'Unknown', 60_000, 200);
      await waitFor(`the pods of ${victim} evicted and 6 running elsewhere`, () => {
        const gone = evicted.every((n) => !pods.pods.has(n) || pods.pods.get(n)!.deleting);
        return gone && pods.live().filter((p) => p.phase === 'Running' && p.nodeName !== victim).length === 6;
      }, 120_000, 200);
      await kemu(lab, 'start', victim);
      await waitFor(`${victim} Ready again`, async () => (await readyOf(victim)) === 'True', 60_000, 200);
    } finally {
      pods.stop();
    }
  }, 300_000);
});
