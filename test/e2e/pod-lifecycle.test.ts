// A pod's life as a user sees it on `kemu up` (one of each component): a container that exits 3 fails the
// pod, one that exits 0 completes it, a crashing container under a Deployment goes CrashLoopBackOff with a
// growing restartCount, and `kubectl delete pod` shows Terminating for the grace period before the pod goes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, hasKubectl, type Lab } from '../lab/lab.ts';
import { call, rec, Watch, type WatchEvent } from '../lab/api.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/e2e/pod-lifecycle.test.ts: ${skip}`);

interface Container {
  restartCount: number;
  ready: boolean;
  waiting?: string;
  waitingMessage?: string;
  exitCode?: number;
  terminatedReason?: string;
  lastExitCode?: number;
}

interface PodState {
  name: string;
  phase: string;
  deleting: boolean;
  containers: Container[];
}

function podState(raw: unknown): PodState {
  const o = rec(raw);
  const md = rec(o.metadata);
  const st = rec(o.status);
  const cs = Array.isArray(st.containerStatuses) ? st.containerStatuses.map(rec) : [];
  return {
    name: String(md.name),
    phase: String(st.phase ?? ''),
    deleting: typeof md.deletionTimestamp === 'string',
    containers: cs.map((c) => {
      const state = rec(c.state);
      const w = rec(state.waiting);
      const t = rec(state.terminated);
      const last = rec(rec(c.lastState).terminated);
      const out: Container = { restartCount: Number(c.restartCount ?? 0), ready: c.ready === true };
      if (typeof w.reason === 'string') out.waiting = w.reason;
      if (typeof w.message === 'string') out.waitingMessage = w.message;
      if (typeof t.exitCode === 'number') out.exitCode = t.exitCode;
      if (typeof t.reason === 'string') out.terminatedReason = t.reason;
      if (typeof last.exitCode === 'number') out.lastExitCode = last.exitCode;
      return out;
    }),
  };
}

function pod(name: string, script: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', script] }], ...extra },
  };
}

describe.skipIf(skip)('pod lifecycle (kemu up, kubectl)', () => {
  let lab: Lab;
  const events: WatchEvent<PodState>[] = [];
  let watch: Watch<PodState>;
  beforeAll(async () => {
    lab = await startLab({ apiservers: 1, controllerManagers: 1, schedulers: 1, workers: 1, imagePullDelay: '0s' });
    await lab.waitRunning(undefined, 120_000);
    await waitFor('worker-0 Ready', async () => {
      const n = rec((await call(lab.server, 'GET', '/api/v1/nodes/worker-0')).body);
      const conds = (rec(n.status).conditions as unknown[] | undefined) ?? [];
      return conds.map(rec).some((c) => c.type === 'Ready' && c.status === 'True');
    }, 60_000, 200);
    watch = new Watch(lab.server, '/api/v1/namespaces/default/pods', '', podState, (_w, ev) => events.push(ev));
    await watch.start();
  }, 150_000);
  afterAll(async () => {
    watch?.stop();
    await lab?.down();
  }, 60_000);

  const create = async (body: unknown) => {
    const r = await call(lab.server, 'POST', '/api/v1/namespaces/default/pods', body);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  };

  it('restartPolicy Never: "sleep 2; exit 3" ends Failed with exitCode 3, "exit 0" ends Succeeded', async () => {
    await create(pod('fails', 'sleep 2; exit 3'));
    await create(pod('completes', 'sleep 1; exit 0'));
    const failed = await waitFor('pod fails Failed', () => (watch.objects.get('fails')?.phase === 'Failed' ? watch.objects.get('fails') : undefined), 60_000, 100);
    expect(failed.containers[0]?.exitCode).toBe(3);
    expect(failed.containers[0]?.terminatedReason).toBe('Error');
    expect(failed.containers[0]?.restartCount).toBe(0);
    // It ran before it failed.
    expect(events.some((e) => e.obj.name === 'fails' && e.obj.phase === 'Running')).toBe(true);
    const ok = await waitFor('pod completes Succeeded', () => (watch.objects.get('completes')?.phase === 'Succeeded' ? watch.objects.get('completes') : undefined), 60_000, 100);
    expect(ok.containers[0]?.exitCode).toBe(0);
    expect(ok.containers[0]?.terminatedReason).toBe('Completed');
    const g = await lab.kubectl('get', 'pods', 'fails', 'completes', '--no-headers');
    expect(g.stdout).toMatch(/^fails\s+0\/1\s+Error\s+0\s/m);
    expect(g.stdout).toMatch(/^completes\s+0\/1\s+Completed\s+0\s/m);
  }, 90_000);

  it('a crashing container under a Deployment goes CrashLoopBackOff with a growing restartCount', async () => {
    const a = await lab.kubectl('create', 'deployment', 'crash', '--image=busybox', '--', 'sh', '-c', 'exit 1');
    expect(a.code, a.stderr).toBe(0);
    const isCrash = (p: PodState) => p.name.startsWith('crash-');
    const first = await waitFor('CrashLoopBackOff', () => [...watch.objects.values()].find((p) => isCrash(p) && p.containers[0]?.waiting === 'CrashLoopBackOff'), 60_000, 100);
    const c0 = first.containers[0]!;
    expect(c0.restartCount).toBeGreaterThanOrEqual(1);
    expect(c0.lastExitCode).toBe(1);
    expect(c0.waitingMessage).toMatch(new RegExp(`^back-off 10s restarting failed container=busybox pod=${first.name}_default\\(`));
    // The kubelet has no flag for the back-off base (10 s, doubling): one more restart is all a test can
    // afford to wait for, and the message then names the doubled back-off.
    const second = await waitFor('restartCount grows and the back-off doubles', () => {
      const p = watch.objects.get(first.name);
      const c = p?.containers[0];
      return c && c.restartCount > c0.restartCount && c.waiting === 'CrashLoopBackOff' ? c : undefined;
    }, 40_000, 100);
    expect(second.waitingMessage).toMatch(/^back-off 20s restarting failed container=busybox /);
    const g = await lab.kubectl('get', 'pods', first.name, '--no-headers');
    expect(g.stdout).toMatch(new RegExp(`^${first.name}\\s+0/1\\s+CrashLoopBackOff\\s+${second.restartCount}\\s`));
    expect((await lab.kubectl('delete', 'deployment', 'crash')).code).toBe(0);
  }, 90_000);

  it('kubectl delete pod: Terminating (deletionTimestamp) for the grace period, then gone', async () => {
    await create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'slow-stop', annotations: { 'kemu.dev/termination-seconds': '30' } },
      spec: { terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'nginx:1.27' }] },
    });
    await waitFor('slow-stop Running and ready', () => watch.objects.get('slow-stop')?.phase === 'Running' && watch.objects.get('slow-stop')?.containers[0]?.ready, 60_000, 100);
    const t0 = Date.now();
    const d = lab.kubectl('delete', 'pod', 'slow-stop', '--wait=false');
    const terminating = await waitFor('slow-stop Terminating', () => (watch.objects.get('slow-stop')?.deleting ? Date.now() : undefined), 20_000, 20);
    expect((await d).code).toBe(0);
    const g = await lab.kubectl('get', 'pod', 'slow-stop', '--no-headers');
    // Kubernetes keeps a terminating container ready until it has stopped (1/1).
    if (watch.objects.has('slow-stop')) expect(g.stdout).toMatch(/^slow-stop\s+1\/1\s+Terminating\s/);
    await waitFor('slow-stop gone', () => !watch.objects.has('slow-stop'), 30_000, 20);
    const gone = Date.now();
    console.log(`slow-stop: Terminating after ${terminating - t0} ms, gone after ${gone - t0} ms`);
    // The container would take 30 s to stop: the 2 s grace period bounds it (then it is killed).
    expect(gone - t0).toBeGreaterThanOrEqual(1_800);
    expect(gone - t0).toBeLessThan(15_000);
    const del = events.find((e) => e.type === 'DELETED' && e.obj.name === 'slow-stop');
    expect(del?.obj.containers[0]?.exitCode).toBe(137);
  }, 90_000);
});
