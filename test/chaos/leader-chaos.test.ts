// Chaos for the leader-elected components, on one process lab: the controller-manager leader stopped, killed
// and frozen (SIGSTOP past its lease) while a Deployment scales; the scheduler leader stopped while pods wait;
// a worker stopped until its node goes Unknown and its pods move.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { leaseHolder } from '@kemu/kemu';
import { startLab, missing, type Lab } from '../lab/lab.ts';
import { call, PodWatch, rec } from '../lab/api.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker');
if (skip) console.warn(`test/chaos/leader-chaos.test.ts: ${skip}`);

const NS = 'default';

function deployment(name: string, replicas: number, extraSpec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...extraSpec },
      },
    },
  };
}

async function scale(lab: Lab, name: string, replicas: number): Promise<void> {
  const r = await call(lab.server, 'PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/${name}`, { spec: { replicas } }).catch(() => undefined);
  if (r && r.status === 200) return;
  // merge patch needs its content type; fall back to a read-modify-write
  const cur = await call(lab.server, 'GET', `/apis/apps/v1/namespaces/${NS}/deployments/${name}`);
  const obj = rec(cur.body);
  (obj.spec as Record<string, unknown>).replicas = replicas;
  const u = await call(lab.server, 'PUT', `/apis/apps/v1/namespaces/${NS}/deployments/${name}`, obj);
  if (u.status !== 200) throw new Error(`scale ${name}: ${u.status} ${JSON.stringify(u.body)}`);
}

async function leader(lab: Lab, lease: string): Promise<string> {
  return waitFor(`a ${lease} leader`, async () => (await leaseHolder(lab.server, lease)).component, 30_000, 100);
}

async function newLeader(lab: Lab, lease: string, old: string, ms = 20_000): Promise<string> {
  return waitFor(`${lease} to leave ${old}`, async () => {
    const c = (await leaseHolder(lab.server, lease)).component;
    return c && c !== old ? c : undefined;
  }, ms, 100);
}

describe.skipIf(skip)('leader chaos (processes)', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({
      apiservers: 2,
      controllerManagers: 3,
      schedulers: 2,
      workers: 3,
      nodeMonitorGracePeriod: '6s',
      nodeMonitorPeriod: '1s',
      nodeStatusUpdateFrequency: '1s',
      nodeLeaseDurationSeconds: 4,
    });
    await lab.waitRunning(undefined, 120_000);
  }, 150_000);
  afterAll(async () => {
    await lab?.down();
  }, 60_000);

  it('never runs more pods than replicas while the controller-manager leader is stopped, then killed, mid-scale', async () => {
    let max = 0;
    let limit = 0;
    const w = new PodWatch(lab.server, NS, 'app=scaler', (pw) => (max = Math.max(max, pw.live().length - limit)));
    await w.start();
    try {
      limit = 10;
      expect((await call(lab.server, 'POST', `/apis/apps/v1/namespaces/${NS}/deployments`, deployment('scaler', 10))).status).toBe(201);
      const first = await leader(lab, 'kube-controller-manager');
      expect((await lab.kemu('stop', first)).code).toBe(0);
      const second = await newLeader(lab, 'kube-controller-manager', first);
      await waitFor('10 pods', () => w.live().length === 10, 30_000);
      limit = 30;
      await scale(lab, 'scaler', 30);
      expect((await lab.kemu('kill', second)).code).toBe(0);
      await newLeader(lab, 'kube-controller-manager', second);
      await waitFor('30 pods', () => w.live().length === 30, 60_000);
      expect(max, 'pods beyond the desired count').toBeLessThanOrEqual(0);
      for (const n of [first, second]) expect((await lab.kemu('start', n)).code).toBe(0);
      await lab.waitRunning([first, second], 60_000);
    } finally {
      w.stop();
    }
  }, 150_000);

  it('a leader frozen past its lease exits on SIGCONT and comes back as a follower; no duplicate pods', async () => {
    let max = 0;
    const w = new PodWatch(lab.server, NS, 'app=frozen', (pw) => (max = Math.max(max, pw.live().length)));
    await w.start();
    try {
      const frozen = await leader(lab, 'kube-controller-manager');
      const restartsBefore = lab.state().components.find((c) => c.name === frozen)!.restarts;
      expect((await lab.kemu('pause', frozen)).code).toBe(0);
      const next = await newLeader(lab, 'kube-controller-manager', frozen);
      expect((await call(lab.server, 'POST', `/apis/apps/v1/namespaces/${NS}/deployments`, deployment('frozen', 5))).status).toBe(201);
      await waitFor('5 pods', () => w.live().length === 5, 30_000);
      expect((await lab.kemu('unpause', frozen)).code).toBe(0);
      // It notices it lost the lease, exits, and the supervisor brings it back.
      await waitFor(`${frozen} restarted`, () => {
        const c = lab.state().components.find((x) => x.name === frozen)!;
        return c.restarts > restartsBefore && c.state === 'running';
      }, 30_000, 100);
      expect((await leaseHolder(lab.server, 'kube-controller-manager')).component).toBe(next);
      await new Promise((r) => setTimeout(r, 1_000)); // give a wrongly-active old leader a chance to misbehave
      expect(max).toBe(5);
      expect(w.live()).toHaveLength(5);
    } finally {
      w.stop();
    }
  }, 120_000);

  it('every one of 500 waiting pods is scheduled exactly once across a scheduler leader stop', async () => {
    const sched = await leader(lab, 'kube-scheduler');
    expect((await lab.kemu('stop', sched)).code).toBe(0);
    const others = lab.state().components.filter((c) => c.kind === 'scheduler' && c.name !== sched).map((c) => c.name);
    for (const o of others) expect((await lab.kemu('stop', o)).code).toBe(0);
    const rebound: string[] = [];
    const w = new PodWatch(lab.server, NS, 'batch=waiting', (_pw, ev) => {
      if (ev.prev?.nodeName && ev.pod.nodeName !== ev.prev.nodeName) rebound.push(ev.pod.name);
    });
    await w.start();
    try {
      const pod = (i: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `wait-${i}`, labels: { batch: 'waiting' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
      for (let i = 0; i < 500; i += 25)
        await Promise.all(Array.from({ length: 25 }, (_, k) => call(lab.server, 'POST', `/api/v1/namespaces/${NS}/pods`, pod(i + k)).then((r) => expect(r.status).toBe(201))));
      expect([...w.pods.values()].filter((p) => p.nodeName)).toHaveLength(0);
      for (const o of [...others, sched]) expect((await lab.kemu('start', o)).code).toBe(0);
      const leaderNow = await leader(lab, 'kube-scheduler');
      await waitFor('some pods scheduled', () => [...w.pods.values()].filter((p) => p.nodeName).length > 50, 60_000);
      expect((await lab.kemu('stop', leaderNow)).code).toBe(0);
      await waitFor('all 500 scheduled', () => [...w.pods.values()].filter((p) => p.nodeName).length === 500, 120_000, 200);
      expect(rebound).toEqual([]);
      expect((await lab.kemu('start', leaderNow)).code).toBe(0);
    } finally {
      w.stop();
    }
    const del = await call(lab.server, 'DELETE', `/api/v1/namespaces/${NS}/pods?labelSelector=batch%3Dwaiting`);
    expect(del.status).toBe(200);
  }, 240_000);

  it('a stopped worker goes Unknown and its pods are evicted and rescheduled', async () => {
    const tolerate = { tolerations: ['unreachable', 'not-ready'].map((t) => ({ key: `node.kubernetes.io/${t}`, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2 })) };
    expect((await call(lab.server, 'POST', `/apis/apps/v1/namespaces/${NS}/deployments`, deployment('mover', 6, tolerate))).status).toBe(201);
    const w = new PodWatch(lab.server, NS, 'app=mover', () => undefined);
    await w.start();
    try {
      await waitFor('6 pods running', () => w.live().filter((p) => p.phase === 'Running').length === 6, 90_000, 200);
      const byNode = (n: string) => w.live().filter((p) => p.nodeName === n);
      const victim = ['worker-0', 'worker-1', 'worker-2'].find((n) => byNode(n).length > 0)!;
      expect((await lab.kemu('stop', victim)).code).toBe(0);
      await waitFor(`${victim} Ready=Unknown`, async () => {
        const r = await call(lab.server, 'GET', `/api/v1/nodes/${victim}`);
        const conds = rec(rec(r.body).status).conditions;
        return Array.isArray(conds) && conds.map(rec).some((c) => c.type === 'Ready' && c.status === 'Unknown');
      }, 60_000, 200);
      await waitFor('6 pods running off the stopped node', () => {
        const live = w.live();
        return live.filter((p) => p.phase === 'Running' && p.nodeName !== victim).length === 6;
      }, 90_000, 200);
      expect((await lab.kemu('start', victim)).code).toBe(0);
    } finally {
      w.stop();
    }
  }, 240_000);
});
