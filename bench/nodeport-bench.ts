// NodePort benchmark: HTTP requests/s to a NodePort Service with 3 emulated nginx endpoints, through the
// kubelet's emulated kube-proxy (proxy/node-ports.ts), each request on a new TCP connection as a `curl` loop
// makes them, balanced over the endpoints. In-process (client and kubelet side in one process, the Services
// fed directly instead of through an apiserver watch), so it measures the listener, the per-connection endpoint
// choice and the emulated servers. Prints requests/s, p50/p99 latency, CPU and the per-pod request counts.
// usage: npm run bench -- nodeport [--seconds 10] [--concurrency 8]
import http from 'node:http';
import type { EndpointSlice, Pod, Service } from '@kemu/api';
import { realClock, type Logger } from '@kemu/base';
import { freePort } from '@kemu/base/testing/ports';
import { ClusterNetwork } from '../packages/kubelet/src/proxy/cluster-network.ts';
import { NodePorts } from '../packages/kubelet/src/proxy/node-ports.ts';
import { ServiceTable } from '../packages/kubelet/src/proxy/service-table.ts';
import { PodTraffic } from '../packages/kubelet/src/proxy/traffic.ts';
import type { LoggedPod } from '../packages/kubelet/src/server/container-logs.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { closedLoop } from './lib/closed-loop.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'nodeport',
  {
    seconds: { type: 'float', default: 10, usage: 'how long requests are sent, in seconds' },
    concurrency: { type: 'int', default: 8, usage: 'requests in flight at once' },
  },
  (f) => atLeast(f, 1, ['concurrency']) ?? atLeast(f, 0, ['seconds'], true),
);

const logger = { info() {}, error() {}, warn() {}, debug() {} } as unknown as Logger;
const PODS = ['web-0', 'web-1', 'web-2'];

function worker(name: string, i: number): LoggedPod {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `bench-${i}` }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27.3' }] }, status: { podIP: `10.244.0.${10 + i}` } } as Pod;
  return { current: pod, lifecycle: { containers: [{ name: 'nginx', state: { kind: 'running' } }] } } as unknown as LoggedPod;
}

function oneRequest(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        res.resume();
        res.on('end', () => resolve());
      })
      .on('error', reject);
  });
}

await runBench('nodeport', async (work) => {
  const nodePort = await freePort();
  const workers = new Map(PODS.map((n, i) => [n, worker(n, i)]));
  const table = new ServiceTable();
  const traffic = new PodTraffic();
  const network = new ClusterNetwork({ table, traffic, clock: realClock, findPod: (_ns, n) => workers.get(n) });
  const ports = new NodePorts(table, network, ['127.0.0.1'], logger);
  work.defer(() => ports.stop());
  const svc: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { type: 'NodePort', clusterIP: '10.96.0.20', ports: [{ port: 80, nodePort, protocol: 'TCP' }] } };
  const slice: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    ports: [{ name: '', port: 80 }],
    endpoints: PODS.map((n, i) => ({ addresses: [`10.244.0.${10 + i}`], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'default', name: n } })),
  };
  table.upsertSlice(slice);
  table.upsertService(svc);
  ports.sync();
  for (let i = 0; i < 50; i++) {
    try {
      await oneRequest(nodePort);
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const before = PODS.map((n) => traffic.count('default', n));
  const r = await closedLoop(flags.seconds, flags.concurrency, () => oneRequest(nodePort));
  console.log(`nodeport: ${r.count} requests in ${r.seconds.toFixed(1)} s, one connection each, 3 endpoints, concurrency ${flags.concurrency}`);
  console.log(`  ${r.perSecond.toFixed(0)} requests/s, latency p50 ${r.q(0.5).toFixed(2)} ms, p99 ${r.q(0.99).toFixed(2)} ms`);
  console.log(`  CPU ${r.cpuPercent.toFixed(0)}% of one core (client and kubelet side together)`);
  console.log(`  requests per pod: ${PODS.map((n, i) => `${n} ${traffic.count('default', n) - (before[i] ?? 0)}`).join(', ')}`);
});
