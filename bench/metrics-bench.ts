// Metrics pipeline cost: one kube-apiserver, one kubelet process emulating --nodes nodes (--node-count, node IPs
// counting up from 127.0.88.1, so metrics-server reaches each node's /metrics/resource at its own InternalIP) with
// --pods pods spread over them, and one metrics-server (15 s resolution) behind the APIService
// v1beta1.metrics.k8s.io. Prints the CPU and RSS of the three idle, then while a client lists
// metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics through the apiserver every --scrape-interval (as the HPA
// controller and `kubectl top` do).
// usage: npm run bench -- metrics [--nodes 1000] [--pods 10000] [--measure-seconds 30] [--scrape-interval 5s]
//        (--help lists the flags)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { R, type KubeObject } from '@kemu/api';
import { BIN, startProcess } from '@kemu/base/testing/processes';
import { freePort } from '@kemu/base/testing/ports';
import { RestClient } from '@kemu/client';
import { startApiserver } from '../test/support/apiserver.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { createBoundPods, procStats, waitNodesReady, waitPodsRunning } from './lib/many-nodes.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'metrics',
  {
    nodes: { type: 'int', default: 1000, usage: 'nodes the kubelet process emulates (its --node-count)' },
    pods: { type: 'int', default: 10_000, usage: 'pods, spread evenly over the nodes' },
    'measure-seconds': { type: 'float', default: 30, usage: 'how long CPU and RSS are measured each time, in seconds' },
    'scrape-interval': { type: 'duration', default: 5000, usage: 'how often the bench lists NodeMetrics and PodMetrics' },
  },
  (f) => atLeast(f, 1, ['nodes', 'pods', 'scrape-interval']) ?? atLeast(f, 0, ['measure-seconds'], true),
);
const NODES = flags.nodes;
const PODS = flags.pods;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(pids: Record<string, number>, label: string, during?: () => Promise<void>): Promise<void> {
  const a = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, procStats(p)]));
  const t0 = performance.now();
  await (during ? during() : sleep(flags['measure-seconds'] * 1000));
  const wall = (performance.now() - t0) / 1000;
  const parts = Object.entries(pids).map(([k, p]) => {
    const b = procStats(p);
    const cpu = (b.cpuTicks - (a[k]?.cpuTicks ?? 0)) / 100 / wall;
    return `${k} CPU ${(cpu * 100).toFixed(1)}% of a core, RSS ${(b.rssKB / 1024).toFixed(0)} MiB`;
  });
  console.log(`${label.padEnd(10)} ${parts.join('; ')} (over ${wall.toFixed(0)} s)`);
}

await runBench('metrics', async (work) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-metrics-'));
  work.defer(() => fs.rmSync(dir, { recursive: true, force: true }));
  // The emulated nodes' names resolve nowhere: the apiserver reaches each kubelet at its InternalIP.
  const api = await startApiserver('kube-apiserver', path.join(dir, 'state.db'), { extra: ['--kubelet-preferred-address-types=InternalIP'] });
  work.defer(() => api.proc.kill('SIGKILL'));
  const cluster = { url: api.url, client: new RestClient({ server: api.url, qps: 1000, burst: 1000 }) };
  await cluster.client.create<KubeObject>(R.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }).catch(() => undefined);
  const apiserverPid = api.proc.child.pid ?? 0;
  const port = await freePort();
  const t0 = performance.now();
  const kubelet = startProcess('kubelet', BIN.kubelet, [`--master=${api.url}`, '--hostname-override=bench', `--node-count=${NODES}`, '--node-ip=127.0.88.1', '--bind-address=0.0.0.0', `--secure-port=${port}`, '--image-pull-delay=0s']);
  work.defer(() => kubelet.kill('SIGKILL'));
  const kubeletPid = kubelet.child.pid ?? 0;
  await waitNodesReady(cluster.client, NODES);
  console.log(`${NODES} nodes Ready after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await createBoundPods(cluster.client, { count: PODS, nodes: NODES, prefix: 'm', label: 'metrics', resources: { requests: { cpu: '100m', memory: '64Mi' } } });
  await waitPodsRunning(cluster.client, 'metrics', PODS);
  console.log(`${PODS} pods Running after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // metrics-server behind a selector-less Service whose Endpoints are its address, as the lab runs it.
  const msPort = await freePort();
  const kubeconfig = path.join(dir, 'metrics-server.kubeconfig');
  fs.writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${api.url}"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`);
  const ms = startProcess('metrics-server', BIN.metricsServer, [
    `--kubeconfig=${kubeconfig}`, '--bind-address=127.0.0.1', `--secure-port=${msPort}`, '--kubelet-insecure-tls',
    '--kubelet-preferred-address-types=InternalIP', `--kubelet-port=${port}`, '--metric-resolution=15s',
  ]);
  work.defer(() => ms.kill('SIGKILL'));
  const svc = { apiVersion: 'v1', metadata: { name: 'metrics-server', namespace: 'kube-system' } };
  await cluster.client.create<KubeObject>(R.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } }).catch(() => undefined);
  await cluster.client.create<KubeObject>(R.services, 'kube-system', { ...svc, kind: 'Service', spec: { ports: [{ name: 'https', port: 443, targetPort: msPort }] } });
  await cluster.client.create<KubeObject>(R.endpoints, 'kube-system', { ...svc, kind: 'Endpoints', subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: msPort }] }] });
  await cluster.client.create<KubeObject>(R.apiservices, undefined, {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: 'v1beta1.metrics.k8s.io' },
    spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true, service: { namespace: 'kube-system', name: 'metrics-server' } },
  });
  // Two scrapes (a resolution apart) before usage shows.
  for (const until = performance.now() + 120_000; performance.now() < until; await sleep(1000)) {
    const r = await fetch(`${cluster.url}/apis/metrics.k8s.io/v1beta1/nodes`).catch(() => undefined);
    if (r?.status === 200 && (((await r.json()) as { items?: unknown[] }).items ?? []).length > 0) break;
  }
  console.log(`metrics-server serving NodeMetrics after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const pids = { kubelet: kubeletPid, apiserver: apiserverPid, 'metrics-server': ms.child.pid ?? 0 };
  await measure(pids, 'idle');
  const get = async (p: string): Promise<{ items: unknown[]; ms: number }> => {
    const s = performance.now();
    const r = await fetch(`${cluster.url}${p}`);
    const body = (await r.json()) as { items?: unknown[] };
    if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${JSON.stringify(body)}`);
    return { items: body.items ?? [], ms: performance.now() - s };
  };
  const first = await Promise.all([get('/apis/metrics.k8s.io/v1beta1/nodes'), get('/apis/metrics.k8s.io/v1beta1/pods')]);
  console.log(`first lists (from metrics-server's storage): ${first[0].items.length} NodeMetrics in ${first[0].ms.toFixed(0)} ms, ${first[1].items.length} PodMetrics in ${first[1].ms.toFixed(0)} ms`);
  const lat: number[] = [];
  await measure(pids, 'scraped', async () => {
    const end = performance.now() + flags['measure-seconds'] * 1000;
    while (performance.now() < end) {
      const [n, p] = await Promise.all([get('/apis/metrics.k8s.io/v1beta1/nodes'), get('/apis/metrics.k8s.io/v1beta1/pods')]);
      lat.push(n.ms, p.ms);
      await sleep(flags['scrape-interval']);
    }
  });
  lat.sort((a, b) => a - b);
  console.log(`metrics.k8s.io list latency (${lat.length} lists): p50 ${lat[Math.floor(lat.length / 2)]?.toFixed(0)} ms, max ${lat[lat.length - 1]?.toFixed(0)} ms`);
});
