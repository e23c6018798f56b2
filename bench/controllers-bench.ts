// kube-controller-manager benchmark, printing figures:
//  1. scale: N Deployments × R replicas created at once; time until every pod exists, pods/s, and duplicate
//     pods (distinct pods ever created beyond N × R, from a watch; must be 0);
//  2. fail-over at the default durations (15s lease, 10s renew deadline, 2s retry): K SIGKILLs and K SIGTERMs
//     of the leader among three processes, time until another holds the Lease (median, max).
// usage: npm run bench -- controllers [--deployments N] [--replicas R] [--kills K] [--qps Q] [--burst B]
//        [--phases scale,failover] (--help lists the flags)
import { R, type Deployment, type Pod } from '@kemu/api';
import { holderName, startEnv, waitFor, type Env } from '../test/controller-manager/cluster.ts';
import { atLeast, benchFlags, oneOf } from './lib/flags.ts';
import { runBench, type Work } from './lib/workdir.ts';

const ALL_PHASES = ['scale', 'failover'];
const flags = benchFlags(
  'controllers',
  {
    deployments: { type: 'int', default: 1000, usage: 'Deployments created at once in the scale phase' },
    replicas: { type: 'int', default: 10, usage: 'replicas per Deployment' },
    kills: { type: 'int', default: 3, usage: 'SIGKILLs and as many SIGTERMs of the leader in the fail-over phase' },
    // Kubernetes' default is 20/30; at that rate 10,000 pods take minutes of pure throttling, so the bench raises it and says so.
    qps: { type: 'float', default: 500, usage: "the controller-manager's --kube-api-qps in the scale phase" },
    burst: { type: 'int', default: 1000, usage: "the controller-manager's --kube-api-burst in the scale phase" },
    phases: { type: 'stringArray', default: ALL_PHASES, usage: 'phases to run' },
  },
  (f) => atLeast(f, 1, ['deployments', 'replicas', 'kills', 'burst']) ?? atLeast(f, 0, ['qps'], true) ?? oneOf(f, 'phases', ALL_PHASES),
);
const DEPLOYMENTS = flags.deployments;
const REPLICAS = flags.replicas;
const KILLS = flags.kills;
const QPS = flags.qps;
const BURST = flags.burst;
const PHASES = new Set(flags.phases);

function deployment(i: number): Deployment {
  const name = `bench-${i}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
    },
  };
}

async function pool<T>(items: T[], concurrency: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

async function scalePhase(work: Work): Promise<void> {
  const env = await startEnv();
  const stop = work.defer(() => env.stop());
  try {
    await env.startManager('kcm-0', [`--kube-api-qps=${QPS}`, `--kube-api-burst=${BURST}`]);
    await waitFor('a leader', () => holderName(env.client), 60_000);
    const want = DEPLOYMENTS * REPLICAS;
    const created = new Set<string>();
    const perDeployment = new Map<string, number>();
    const live = new Set<string>();
    let allAt = 0;
    const ctrl = new AbortController();
    const list = await env.client.list<Pod>(R.pods, 'default');
    const t0 = Date.now();
    const done = new Promise<void>((resolve, reject) => {
      void (async () => {
        let rv = list.metadata.resourceVersion ?? '';
        while (!ctrl.signal.aborted) {
          try {
            for await (const ev of env.client.watch<Pod>(R.pods, 'default', { resourceVersion: rv, allowWatchBookmarks: true, signal: ctrl.signal })) {
              rv = ev.object.metadata.resourceVersion ?? rv;
              const uid = ev.object.metadata.uid ?? '';
              if (ev.type === 'ADDED' && !created.has(uid)) {
                created.add(uid);
                const d = (ev.object.metadata.labels ?? {}).app ?? '';
                perDeployment.set(d, (perDeployment.get(d) ?? 0) + 1);
              }
              if (ev.type === 'DELETED') live.delete(uid);
              else live.add(uid);
              if (!allAt && live.size >= want) {
                allAt = Date.now();
                resolve();
              }
            }
          } catch (e) {
            if (ctrl.signal.aborted) return;
            if ((e as { code?: number }).code === 410) return reject(new Error('pod watch expired (410) during the bench'));
          }
        }
      })();
    });
    const items = Array.from({ length: DEPLOYMENTS }, (_, i) => i);
    await pool(items, 32, async (i) => {
      await env.client.create(R.deployments, 'default', deployment(i));
    });
    const createdAllDeployments = Date.now() - t0;
    await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error(`timed out with ${live.size}/${want} pods`)), 30 * 60_000))]);
    const ms = allAt - t0;
    // Give the controllers a moment to make any late extra pod they were going to make, then count.
    await new Promise((r) => setTimeout(r, 5000));
    ctrl.abort();
    const duplicates = created.size - want;
    const over = [...perDeployment.values()].filter((n) => n > REPLICAS).length;
    console.log(`scale: ${DEPLOYMENTS} Deployments × ${REPLICAS} replicas (controller-manager --kube-api-qps=${QPS} --kube-api-burst=${BURST})`);
    console.log(`  deployments created in ${createdAllDeployments} ms`);
    console.log(`  all ${want} pods exist after ${(ms / 1000).toFixed(1)} s → ${(want / (ms / 1000)).toFixed(0)} pods/s`);
    console.log(`  duplicate pods: ${duplicates} (deployments with more than ${REPLICAS} pods ever: ${over})`);
  } finally {
    await stop();
  }
}

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const median = s.length % 2 ? (s[(s.length - 1) / 2] ?? 0) : ((s[s.length / 2 - 1] ?? 0) + (s[s.length / 2] ?? 0)) / 2;
  return `median ${(median / 1000).toFixed(2)} s, max ${((s[s.length - 1] ?? 0) / 1000).toFixed(2)} s (${s.map((x) => (x / 1000).toFixed(2)).join(', ')})`;
}

async function failoverPhase(work: Work): Promise<void> {
  const env: Env = await startEnv();
  const stop = work.defer(() => env.stop());
  try {
    const names = ['kcm-a', 'kcm-b', 'kcm-c'];
    await Promise.all(names.map((n) => env.startManager(n, [])));
    const times: Record<'SIGKILL' | 'SIGTERM', number[]> = { SIGKILL: [], SIGTERM: [] };
    for (const sig of ['SIGKILL', 'SIGTERM'] as const) {
      for (let i = 0; i < KILLS; i++) {
        const leader = await waitFor('a leader', () => holderName(env.client), 60_000, 50);
        // Let the followers observe a fresh renewal first, as in steady state.
        await new Promise((r) => setTimeout(r, 3000));
        const proc = env.managers.get(leader);
        const t0 = Date.now();
        proc?.child.kill(sig);
        await waitFor('a new leader', async () => {
          const h = await holderName(env.client);
          return h && h !== leader;
        }, 60_000, 25);
        times[sig].push(Date.now() - t0);
        await proc?.exited;
        await env.startManager(leader, []);
      }
    }
    console.log('fail-over at default durations (lease 15s, renew deadline 10s, retry 2s), 3 processes:');
    console.log(`  SIGKILL: ${stats(times.SIGKILL)}`);
    console.log(`  SIGTERM: ${stats(times.SIGTERM)}`);
  } finally {
    await stop();
  }
}

await runBench('controllers', async (work) => {
  if (PHASES.has('scale')) await scalePhase(work);
  if (PHASES.has('failover')) await failoverPhase(work);
});
