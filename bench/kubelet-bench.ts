// Kubelet scale benchmark: one kubelet process emulating --node-count nodes against an apiserver.
// Prints the kubelet's RSS and CPU at steady state (idle, then with P pods per node) and pod startup latency
// (create → Running seen by a watch) at a fixed creation rate.
// usage: npm run bench -- kubelet [--nodes 1000] [--pods-per-node 30] [--measure-seconds 30] [--rate 50] [--latency-pods 500]
//        (--help lists the flags)
import { R, type Pod } from '@kemu/api';
import { startCluster, startKubelet } from '../test/kubelet/cluster.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { benchNodeName, createBoundPods, procStats, waitNodesReady, waitPodsRunning } from './lib/many-nodes.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'kubelet',
  {
    nodes: { type: 'int', default: 1000, usage: 'nodes the kubelet process emulates (its --node-count)' },
    'pods-per-node': { type: 'int', default: 30, usage: 'pods per node for the second RSS and CPU figure' },
    'measure-seconds': { type: 'float', default: 30, usage: 'how long RSS and CPU are measured each time, in seconds' },
    rate: { type: 'float', default: 50, usage: 'pods/s created for the start-up latency figure' },
    'latency-pods': { type: 'int', default: 500, usage: 'pods created for the start-up latency figure' },
  },
  (f) => atLeast(f, 1, ['nodes', 'pods-per-node', 'latency-pods']) ?? atLeast(f, 0, ['measure-seconds', 'rate'], true),
);
const NODES = flags.nodes;
const PODS_PER_NODE = flags['pods-per-node'];
const MEASURE_S = flags['measure-seconds'];
const RATE = flags.rate;
const LATENCY_PODS = flags['latency-pods'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let baselineKB = 0;

async function measure(pid: number, label: string, seconds: number): Promise<void> {
  const a = procStats(pid);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const b = procStats(pid);
  const wall = (performance.now() - t0) / 1000;
  const cpu = (b.cpuTicks - a.cpuTicks) / 100 / wall;
  console.log(
    `${label.padEnd(28)} RSS ${(b.rssKB / 1024).toFixed(1)} MiB (${((b.rssKB - baselineKB) / NODES).toFixed(1)} KiB/node above a 1-node kubelet), CPU ${(cpu * 100).toFixed(2)}% of a core over ${wall.toFixed(0)} s`,
  );
}

await runBench('kubelet', async (work) => {
  const cluster = await startCluster();
  work.defer(() => cluster.close());
  // Baseline: the same binary emulating one node.
  const one = startKubelet(cluster, ['--hostname-override=baseline']);
  await sleep(8000);
  baselineKB = procStats(one.child.pid ?? 0).rssKB;
  console.log(`1-node kubelet RSS ${(baselineKB / 1024).toFixed(1)} MiB`);
  await one.kill('SIGKILL');
  const t0 = performance.now();
  const kubelet = startKubelet(cluster, ['--hostname-override=bench', `--node-count=${NODES}`]);
  const pid = kubelet.child.pid ?? 0;
  await waitNodesReady(cluster.client, NODES);
  console.log(`${NODES} nodes Ready after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await sleep(15_000); // let registration traffic settle into the heartbeat rhythm
  await measure(pid, 'idle', MEASURE_S);

  // Startup latency: pods bound up front (no scheduler needed), created at RATE/s, Running seen by a watch.
  const created = new Map<string, number>();
  const latencies: number[] = [];
  const abort = new AbortController();
  const watching = (async () => {
    try {
      for await (const ev of cluster.client.watch<Pod>(R.pods, 'default', { signal: abort.signal, labelSelector: 'bench=latency' })) {
        const name = ev.object.metadata.name ?? '';
        const at = created.get(name);
        if (at !== undefined && ev.object.status?.phase === 'Running') {
          latencies.push(performance.now() - at);
          created.delete(name);
        }
      }
    } catch {
      // aborted
    }
  })();
  await sleep(500);
  for (let i = 0; i < LATENCY_PODS; i++) {
    const name = `lat-${i}`;
    created.set(name, performance.now());
    void cluster.client.create(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', labels: { bench: 'latency' } },
      spec: { nodeName: benchNodeName(NODES, i), containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
    } as Pod);
    await sleep(1000 / RATE);
  }
  const deadline = Date.now() + 60_000;
  while (latencies.length < LATENCY_PODS && Date.now() < deadline) await sleep(200);
  abort.abort();
  await watching;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]?.toFixed(0);
  console.log(`pod startup latency at ${RATE} pods/s (${latencies.length}/${LATENCY_PODS} pods): p50 ${pct(50)} ms, p90 ${pct(90)} ms, p99 ${pct(99)} ms`);

  // Fill to PODS_PER_NODE pods per node.
  const total = NODES * PODS_PER_NODE;
  const tFill = performance.now();
  await createBoundPods(cluster.client, { count: total, nodes: NODES, prefix: 'fill', label: 'fill' });
  await waitPodsRunning(cluster.client, 'fill', total);
  console.log(`${total} pods Running after ${((performance.now() - tFill) / 1000).toFixed(1)} s`);
  await sleep(10_000);
  await measure(pid, `${PODS_PER_NODE} pods/node`, MEASURE_S);
});
