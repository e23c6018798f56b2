// Pod startup latency with the scheduler and controller-manager in the loop: one kube-apiserver (fresh SQLite),
// one kube-controller-manager, one kube-scheduler and one kubelet process emulating 3 nodes (no image pull
// delay). Per pod, latency runs from its ADDED event to its first event with status.phase Running, both seen
// on one pod watch opened before the run (creationTimestamp has 1 s resolution, too coarse for this).
// Mode A (default): a Deployment scaled up by one replica every 1/rate s to --pods, so the ReplicaSet controller
// creates the pods and the scheduler binds them. Mode B (--direct): the bench POSTs unbound pods at --rate itself.
// Kubernetes' SLO is p99 ≤ 5 s; the goal here is p99 ≤ 1 s.
// usage: npm run bench -- pod-startup [--pods 500] [--rate 50] [--direct] [--component-qps 100] (--help lists the flags)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { R, type Deployment, type Pod } from '@kemu/api';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { RestClient } from '@kemu/client';
import { startReplica } from '../test/apiserver/cluster.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'pod-startup',
  {
    pods: { type: 'int', default: 500, usage: 'pods in all, the first a warm-up that is not measured' },
    rate: { type: 'float', default: 50, usage: 'pods/s: scale-ups (mode A) or POSTs (mode B, --direct)' },
    direct: { type: 'bool', default: false, usage: 'mode B: the bench POSTs unbound pods itself instead of scaling a Deployment' },
    'component-qps': { type: 'float', default: 100, usage: 'client QPS of the controller-manager and scheduler, burst twice it; 0: their defaults' },
  },
  (f) => atLeast(f, 2, ['pods']) ?? atLeast(f, 0, ['rate'], true) ?? atLeast(f, 0, ['component-qps']),
);
const PODS = flags.pods;
const RATE = flags.rate;
const QPS = flags['component-qps'];
const DIRECT = flags.direct;
const NODES = 3;

const NS = 'default';
const APP = 'startup-bench';
const IMAGE = 'registry.k8s.io/pause:3.10'; // preloaded on every emulated node: no pull at all

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const alive = (p: Proc): boolean => p.child.exitCode === null && p.child.signalCode === null;

/** Per pod name: when its ADDED and its first Running event were seen (performance.now()). */
class PodTimes {
  readonly added = new Map<string, number>();
  readonly running = new Map<string, number>();
  /** When spec.nodeName was first seen set (the bind), to split the latency into scheduling and kubelet. */
  readonly bound = new Map<string, number>();
  private readonly abort = new AbortController();
  private done: Promise<void> | undefined;
  error: unknown;

  start(client: RestClient, resourceVersion: string): void {
    this.done = (async () => {
      try {
        const events = client.watch<Pod>(R.pods, NS, { signal: this.abort.signal, labelSelector: `app=${APP}`, resourceVersion });
        for await (const ev of events) {
          const now = performance.now();
          const name = ev.object.metadata?.name ?? '';
          if (ev.type === 'ADDED' && !this.added.has(name)) this.added.set(name, now);
          if (ev.type !== 'DELETED' && ev.object.spec?.nodeName && !this.bound.has(name)) this.bound.set(name, now);
          if ((ev.type === 'ADDED' || ev.type === 'MODIFIED') && ev.object.status?.phase === 'Running' && !this.running.has(name)) {
            this.running.set(name, now);
          }
        }
      } catch (e) {
        if (!this.abort.signal.aborted) this.error = e;
      }
    })();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.done;
  }

  /** Names ADDED after `since` (in creation-seen order). */
  addedSince(since: number): string[] {
    return [...this.added].filter(([, t]) => t >= since).sort((a, b) => a[1] - b[1]).map(([n]) => n);
  }
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

function podSpec(): Pod['spec'] {
  return { containers: [{ name: 'c', image: IMAGE }], terminationGracePeriodSeconds: 0 };
}

/** Mode A: raise the Deployment's replicas towards 1 + rate × elapsed, never more than one PATCH in flight. */
async function scaleDeployment(client: RestClient, name: string): Promise<void> {
  const t0 = performance.now();
  let sent = 1;
  while (sent < PODS) {
    const want = Math.min(PODS, 1 + Math.floor(((performance.now() - t0) * RATE) / 1000));
    if (want > sent) {
      await client.patch(R.deployments, NS, name, { spec: { replicas: want } }, 'merge', { subresource: 'scale' });
      sent = want;
    }
    await sleep(Math.max(1, 1000 / RATE - 2));
  }
}

/** Mode B: POST unbound pods at the rate (each on its own tick, not waiting for the previous reply). */
async function createPods(client: RestClient): Promise<void> {
  const t0 = performance.now();
  const pending: Promise<unknown>[] = [];
  for (let i = 1; i < PODS; i++) {
    const at = t0 + ((i - 1) * 1000) / RATE;
    const wait = at - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(client.create<Pod>(R.pods, NS, { metadata: { name: `${APP}-${i}`, labels: { app: APP } }, spec: podSpec() } as Pod));
  }
  await Promise.all(pending);
}

await runBench('pod-startup', async (work) => {
  console.log(`pod startup: ${PODS} pods at ${RATE}/s, mode ${DIRECT ? 'B (--direct: bench POSTs unbound pods)' : 'A (Deployment scaled up, ReplicaSet controller creates)'}, ${NODES} emulated nodes, no pull delay`);
  console.log(`controller-manager/scheduler client QPS: ${QPS > 0 ? `${QPS} (burst ${QPS * 2})` : 'their defaults'}`);
  console.log(`/proc/loadavg before the run: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);

  const api = await startReplica(path.join(work.dir, 'state.db'), 'apiserver-0');
  const client = new RestClient({ server: api.url, qps: 1000, burst: 1000 });
  const qpsFlags = QPS > 0 ? [`--kube-api-qps=${QPS}`, `--kube-api-burst=${QPS * 2}`] : [];
  const procs = [
    startProcess('kube-controller-manager', BIN.controllerManager, [`--master=${api.url}`, '--secure-port=0', '--hostname-override=cm-0', ...qpsFlags]),
    startProcess('kube-scheduler', BIN.scheduler, [`--master=${api.url}`, '--secure-port=0', '--hostname-override=sched-0', ...qpsFlags]),
    startProcess('kubelet', BIN.kubelet, [
      `--master=${api.url}`,
      '--hostname-override=bench',
      `--node-count=${NODES}`,
      '--image-pull-delay=0s',
      '--secure-port=0',
      // 110 per node (the default) would leave part of the pods Pending on 3 nodes.
      `--max-pods=${Math.max(110, Math.ceil(PODS / NODES) + 10)}`,
    ]),
  ];
  const check = (): void => {
    for (const p of procs) if (!alive(p)) throw new Error(`${p.name} exited: ${p.output().slice(-2000)}`);
  };

  const list = await client.list<Pod>(R.pods, NS, { labelSelector: `app=${APP}` });
  const times = new PodTimes();
  times.start(client, list.metadata?.resourceVersion ?? '0');

  // Warm-up: one pod through the whole path (leader election, informers synced, nodes Ready, watch live);
  // it is not measured.
  const depName = APP;
  if (DIRECT) {
    await client.create<Pod>(R.pods, NS, { metadata: { name: `${APP}-0`, labels: { app: APP } }, spec: podSpec() } as Pod);
  } else {
    await client.create<Deployment>(R.deployments, NS, {
      metadata: { name: depName },
      spec: { replicas: 1, selector: { matchLabels: { app: APP } }, template: { metadata: { labels: { app: APP } }, spec: podSpec() } },
    } as Deployment);
  }
  await waitFor('the warm-up pod Running', () => {
    check();
    if (times.error) throw times.error;
    return times.running.size >= 1;
  }, 120_000, 50);
  console.log(`warm-up pod Running; measuring ${PODS - 1} more`);

  const runStart = performance.now();
  await (DIRECT ? createPods(client) : scaleDeployment(client, depName));
  const sentAt = performance.now();
  await waitFor(`${PODS - 1} pods Running`, () => {
    check();
    if (times.error) throw times.error;
    const names = times.addedSince(runStart);
    return names.length >= PODS - 1 && names.every((n) => times.running.has(n));
  }, 120_000 + (PODS * 1000) / RATE, 100);
  await times.stop();

  const names = times.addedSince(runStart);
  const lat = names.map((n) => (times.running.get(n) ?? NaN) - (times.added.get(n) ?? NaN)).sort((a, b) => a - b);
  const bind = names.map((n) => (times.bound.get(n) ?? NaN) - (times.added.get(n) ?? NaN)).sort((a, b) => a - b);
  const firstAdded = times.added.get(names[0] ?? '') ?? runStart;
  const lastAdded = times.added.get(names[names.length - 1] ?? '') ?? runStart;
  const rate = names.length > 1 ? ((names.length - 1) * 1000) / (lastAdded - firstAdded) : NaN;
  const p99 = pct(lat, 99);
  console.log(`${DIRECT ? 'POSTs' : 'scale-ups'} issued in ${((sentAt - runStart) / 1000).toFixed(1)} s; pods created (ADDED seen) at ${rate.toFixed(1)} pods/s (target ${RATE})`);
  console.log(
    `pod startup latency (ADDED → Running seen), n=${lat.length}: p50 ${pct(lat, 50).toFixed(0)} ms, p90 ${pct(lat, 90).toFixed(0)} ms, ` +
      `p99 ${p99.toFixed(0)} ms, max ${(lat[lat.length - 1] ?? NaN).toFixed(0)} ms ` +
      `(SLO p99 ≤ 5 s: ${p99 <= 5000 ? 'met' : 'MISSED'}; goal p99 ≤ 1 s: ${p99 <= 1000 ? 'met' : 'MISSED'})`,
  );
  console.log(`  of which ADDED → bound (spec.nodeName seen): p50 ${pct(bind, 50).toFixed(0)} ms, p99 ${pct(bind, 99).toFixed(0)} ms`);
  console.log(`/proc/loadavg after the run: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
});
