// The HPA walkthrough's data path in one process: a busybox load generator's own command (live) resolves the
// php-apache Service, its wget goes through the cluster network to the emulated hpa-example server, which answers
// OK!; each request served is counted for php-apache, whose CPU in the node's stats rises over its base, then falls
// back one usage window after the load stops.
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Pod, Service } from '@kemu/api';
import { realClock } from '@kemu/base';
import { LiveProcess } from '../logs/live-process.ts';
import { LogInstance } from '../logs/store.ts';
import { containerProgram } from '../pods/program.ts';
import { ClusterNetwork } from '../proxy/cluster-network.ts';
import { ServiceTable } from '../proxy/service-table.ts';
import { PodTraffic } from '../proxy/traffic.ts';
import type { LoggedPod } from '../server/container-logs.ts';
import { NodeStatsCollector, type StatsPodSource } from './node-stats.ts';

const started = Date.now();
const php: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  // 10 ms of CPU per request (20 ms to answer at the 500m limit) and a 500 ms window keep the test short.
  metadata: { name: 'php-apache-7d5d', namespace: 'default', uid: 'u-php', annotations: { 'kemu.dev/cpu-per-request': '10m', 'kemu.dev/cpu-usage-window': '500ms' } },
  spec: { containers: [{ name: 'php-apache', image: 'registry.k8s.io/hpa-example', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '200m' }, limits: { cpu: '500m' } } }] },
  status: { podIP: '10.244.0.10' },
};
const phpWorker = { current: php, lifecycle: { startTime: started, containers: [{ name: 'php-apache', state: { kind: 'running', startedAt: started, exitAt: null, containerID: 'c-php' } }] } };
const service: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'php-apache', namespace: 'default' }, spec: { clusterIP: '10.96.0.50', ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }] } };
const slice: EndpointSlice = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'php-apache-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'php-apache' } },
  addressType: 'IPv4',
  ports: [{ name: '', port: 80, protocol: 'TCP' }],
  endpoints: [{ addresses: ['10.244.0.10'], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'default', name: 'php-apache-7d5d' } }],
};

async function waitFor(what: string, cond: () => boolean, ms = 15_000): Promise<void> {
  for (const end = Date.now() + ms; !cond(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the HPA walkthrough in one kubelet process', () => {
  it("a load generator's wget loop raises php-apache's CPU over its base; stopped, it falls back", async () => {
    const table = new ServiceTable();
    table.upsertService(service);
    table.upsertSlice(slice);
    const traffic = new PodTraffic();
    const net = new ClusterNetwork({ table, traffic, clock: realClock, findPod: (ns, n) => (ns === 'default' && n === php.metadata.name ? (phpWorker as unknown as LoggedPod) : undefined) });
    const stats = new NodeStatsCollector({ name: 'worker-0', memoryCapacityBytes: 1e10, podWorkers: () => [phpWorker as StatsPodSource] }, started, { source: () => traffic, windowMs: 10_000 });
    const phpCpu = () => (stats.collect(Date.now()).pods[0]?.usageNanoCores ?? 0) / 1e6;
    expect(phpCpu()).toBeCloseTo(20);

    const script = 'while sleep 0.01; do wget -q -O- http://php-apache.default.svc.cluster.local; done';
    const program = containerProgram({ name: 'load-generator', image: 'busybox:1.28', command: ['/bin/sh', '-c', script] }, { name: 'load-generator', namespace: 'default' });
    const steps = program.live?.(Date.now(), '10.244.0.20', net.forPod({ namespace: 'default', name: 'load-generator', ip: '10.244.0.20' }));
    if (!steps) throw new Error('the load generator does not run live');
    const log = new LogInstance('c-load');
    const load = new LiveProcess(steps, log, () => Date.now(), () => {});
    await waitFor('20 requests served', () => traffic.count('default', 'php-apache-7d5d') >= 20);
    // Counted when connected, printed when answered: the last answer may still be on its way.
    expect(log.records.map((r) => r.text).join('')).toMatch(/^(OK!){19,}$/);
    // Each round: 10 ms asleep + 20 ms answering, so ≤ 33 requests/s at 10m: at most 330m over the base; each
    // request in the last 500 ms adds 20m.
    const busy = phpCpu();
    expect(busy).toBeGreaterThan(35);
    expect(busy).toBeLessThanOrEqual(500);
    load.stop();
    await waitFor('the base again', () => Math.abs(phpCpu() - 20) < 1e-6, 5_000);
    const total = stats.collect(Date.now()).pods[0]?.usageCoreNanoSeconds ?? 0;
    // Every request served is in the counter: 10m each, over the base's 20m per second.
    const served = traffic.count('default', 'php-apache-7d5d');
    const base = 0.02 * (Date.now() - started) * 1e6;
    expect((total - base) / 1e7).toBeCloseTo(served, 0);
  });
});
