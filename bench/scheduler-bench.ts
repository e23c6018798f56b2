// kube-scheduler benchmark in the style of scheduler_perf: nodes created through the API (no kubelets),
// pending pods created up front, then a scheduler started for them; prints how fast every pod is bound
// (overall and sustained pods/s, from a watch), with the apiserver in the same run on the same machine.
// Workloads: "plain" (requests only) and "spread" (PodTopologySpread over zones + required pod
// anti-affinity per hostname, on every pod).
// usage: npm run bench -- scheduler [--nodes 1000,5000] [--pods 10000] [--workloads plain,spread] [--qps 5000]
//        (--help lists the flags)
import { R, type Pod } from '@kemu/api';
import { waitFor } from '@kemu/base/testing/processes';
import { createNode, startEnv, type Env } from '../test/scheduler/cluster.ts';
import { atLeast, benchFlags, invalid, oneOf } from './lib/flags.ts';
import { runBench } from './lib/workdir.ts';

const ALL_WORKLOADS = ['plain', 'spread'];
const flags = benchFlags(
  'scheduler',
  {
    nodes: { type: 'stringArray', default: ['1000', '5000'], usage: 'node counts, a fresh apiserver for each' },
    pods: { type: 'int', default: 10_000, usage: 'pending pods per workload' },
    workloads: { type: 'stringArray', default: ALL_WORKLOADS, usage: 'workloads at each node count' },
    qps: { type: 'float', default: 5000, usage: "the scheduler's clientConnection.qps (burst twice it)" },
  },
  (f) => {
    const bad = f.nodes.find((n) => !/^\d+$/.test(n) || Number(n) < 1);
    if (bad !== undefined) return invalid('nodes', bad, 'must be a list of positive integers');
    return atLeast(f, 1, ['pods']) ?? atLeast(f, 0, ['qps'], true) ?? oneOf(f, 'workloads', ALL_WORKLOADS);
  },
);
const NODE_COUNTS = flags.nodes.map(Number);
const PODS = flags.pods;
const WORKLOADS = flags.workloads;
const QPS = flags.qps;
const ZONES = 10;
const GROUPS = 100;

async function pool<T>(items: T[], concurrency: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

function pod(workload: string, schedulerName: string, i: number): Pod {
  const group = `g${i % GROUPS}`;
  const p: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${workload}-${i}`, labels: { group } },
    spec: {
      schedulerName,
      containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9', resources: { requests: { cpu: '100m', memory: '500Mi' } } }],
    },
  };
  if (workload === 'spread') {
    p.spec.topologySpreadConstraints = [
      { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { group } } },
    ];
    p.spec.affinity = {
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { group } }, topologyKey: 'kubernetes.io/hostname' }] },
    };
  }
  return p;
}

function schedulerConfig(name: string): string {
  return [
    'apiVersion: kubescheduler.config.k8s.io/v1',
    'kind: KubeSchedulerConfiguration',
    'leaderElection: { leaderElect: false }',
    // scheduler_perf runs with a high client rate limit too; the default 50 qps would cap binds at 50/s.
    `clientConnection: { qps: ${QPS}, burst: ${QPS * 2} }`,
    'profiles:',
    `- schedulerName: ${name}`,
    '',
  ].join('\n');
}

async function phase(env: Env, nodes: number, workload: string): Promise<void> {
  const ns = `${workload}-${nodes}`;
  await env.client.create(R.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const schedulerName = `bench-${ns}`;
  const idx = Array.from({ length: PODS }, (_, i) => i);
  const tc = Date.now();
  await pool(idx, 64, async (i) => {
    await env.client.create(R.pods, ns, pod(workload, schedulerName, i));
  });
  const createSecs = (Date.now() - tc) / 1000;

  const bound = new Set<string>();
  const boundAt: number[] = [];
  const ctrl = new AbortController();
  const listed = await env.client.list<Pod>(R.pods, ns, { limit: 1 });
  const watching = (async () => {
    try {
      for await (const ev of env.client.watch<Pod>(R.pods, ns, { signal: ctrl.signal, resourceVersion: listed.metadata.resourceVersion })) {
        const name = ev.object.metadata.name ?? '';
        if (ev.object.spec?.nodeName && !bound.has(name)) {
          bound.add(name);
          boundAt.push(Date.now());
        }
      }
    } catch {
      // aborted at the end
    }
  })();

  const t0 = Date.now();
  const sched = env.startScheduler(`sched-${ns}`, ['--v=2'], schedulerConfig(schedulerName));
  try {
    await waitFor(`${PODS} pods bound`, () => {
      if (sched.child.exitCode !== null) throw new Error(`scheduler exited: ${sched.output().slice(-2000)}`);
      return bound.size >= PODS;
    }, 30 * 60_000, 100);
  } finally {
    ctrl.abort();
    await watching;
    await sched.kill('SIGKILL');
  }
  const violations = workload === 'spread' ? await checkSpread(env, ns, nodes) : 0;
  const first = boundAt[0] ?? t0;
  const last = boundAt[boundAt.length - 1] ?? t0;
  const total = (last - first) / 1000;
  // Sustained: the median of per-second bind counts, ignoring the first and last partial seconds.
  const perSec = new Map<number, number>();
  for (const t of boundAt) perSec.set(Math.floor((t - first) / 1000), (perSec.get(Math.floor((t - first) / 1000)) ?? 0) + 1);
  const secs = [...perSec.entries()].sort((a, b) => a[0] - b[0]).slice(1, -1).map(([, n]) => n).sort((a, b) => a - b);
  const median = secs.length ? (secs[Math.floor(secs.length / 2)] ?? 0) : PODS / Math.max(total, 0.001);
  console.log(
    JSON.stringify({
      bench: 'scheduler',
      workload,
      nodes,
      pods: PODS,
      podCreateSeconds: Number(createSecs.toFixed(1)),
      startToFirstBindSeconds: Number(((first - t0) / 1000).toFixed(2)),
      bindSeconds: Number(total.toFixed(2)),
      podsPerSecond: Math.round(PODS / Math.max(total, 0.001)),
      sustainedPodsPerSecond: median,
      failedAttempts: sched.output().split('unable to schedule pod').length - 1,
      ...(workload === 'spread' ? { constraintViolations: violations } : {}),
    }),
  );
}

/** Counts placements that break the workload's rules: zone skew > 1 within a group, or two group pods on a node. */
async function checkSpread(env: Env, ns: string, nodes: number): Promise<number> {
  const pods = (await env.client.list<Pod>(R.pods, ns)).items;
  const zoneOf = (node: string) => `zone-${Number(node.slice('node-'.length)) % ZONES}`;
  const perZone = new Map<string, Map<string, number>>();
  const perNode = new Set<string>();
  let bad = 0;
  for (const p of pods) {
    const g = p.metadata.labels?.group ?? '';
    const n = p.spec.nodeName ?? '';
    if (perNode.has(`${g}/${n}`)) bad++;
    perNode.add(`${g}/${n}`);
    const z = perZone.get(g) ?? new Map<string, number>();
    z.set(zoneOf(n), (z.get(zoneOf(n)) ?? 0) + 1);
    perZone.set(g, z);
  }
  for (const z of perZone.values()) {
    const counts = Array.from({ length: Math.min(ZONES, nodes) }, (_, i) => z.get(`zone-${i}`) ?? 0);
    if (Math.max(...counts) - Math.min(...counts) > 1) bad++;
  }
  return bad;
}

await runBench('scheduler', async (work) => {
  for (const nodes of NODE_COUNTS) {
    const env = await startEnv();
    const stop = work.defer(() => env.stop());
    try {
      const tn = Date.now();
      await pool(
        Array.from({ length: nodes }, (_, i) => i),
        64,
        async (i) => {
          await createNode(env.client, `node-${i}`, { cpu: '32', memory: '256Gi', pods: '110', labels: { 'topology.kubernetes.io/zone': `zone-${i % ZONES}` } });
        },
      );
      console.log(JSON.stringify({ bench: 'scheduler', nodes, nodeCreateSeconds: Number(((Date.now() - tn) / 1000).toFixed(1)) }));
      for (const w of WORKLOADS) await phase(env, nodes, w);
    } finally {
      await stop();
    }
  }
});
