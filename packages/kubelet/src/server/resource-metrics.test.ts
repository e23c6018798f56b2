// /stats/summary and /metrics/resource as metrics-server reads them: a node's running containers with their
// emulated usage, summed per pod and node, the node's counter kept when a container goes; served over HTTP.
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import type { Pod } from '@kemu/api';
import { NodeStatsCollector, type StatsPodSource } from '../usage/node-stats.ts';
import { goFloat, resourceMetricsRoutes } from './resource-metrics.ts';

const T0 = Date.parse('2026-12-04T10:00:00Z');
function worker(name: string, annotations: Record<string, string>, running: boolean): StatsPodSource {
  const current: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations }, spec: { containers: [{ name: 'app', image: 'nginx' }] } };
  const state = running ? { kind: 'running' as const, startedAt: T0, exitAt: null, containerID: `containerd://${name}` } : { kind: 'waiting' as const, reason: 'ContainerCreating' };
  return { current, lifecycle: { startTime: T0, containers: [{ name: 'app', state }] } };
}

let workers: StatsPodSource[] = [worker('busy', { 'kemu.dev/cpu-usage': '250m', 'kemu.dev/memory-usage': '100Mi' }, true), worker('new', {}, false)];
const collector = new NodeStatsCollector({ name: 'worker-1', memoryCapacityBytes: 8 * 1024 ** 3, podWorkers: () => workers }, T0);
let now = T0 + 10_000;
const routes = resourceMetricsRoutes({ nodes: () => [{ ip: '10.0.0.1', stats: collector }], now: () => now });
const server = http.createServer((req, res) => {
  void Promise.resolve(routes(req, res, new URL(req.url ?? '/', 'http://x').pathname)).then((done) => {
    if (!done) res.writeHead(404).end();
  });
});
const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('kubelet resource endpoints', () => {
  it('serves /stats/summary in the Summary shape', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/stats/summary`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { node: Record<string, unknown>; pods: Record<string, unknown>[] };
    expect(body.node).toMatchObject({
      nodeName: 'worker-1',
      startTime: '2026-12-04T10:00:00Z',
      cpu: { time: '2026-12-04T10:00:10Z', usageNanoCores: 300_000_000, usageCoreNanoSeconds: 3_000_000_000 },
      memory: { workingSetBytes: 356 * 1024 * 1024, availableBytes: 8 * 1024 ** 3 - 356 * 1024 * 1024 },
    });
    expect(body.pods).toEqual([
      expect.objectContaining({
        podRef: { name: 'busy', namespace: 'default', uid: 'uid-busy' },
        containers: [expect.objectContaining({ name: 'app', startTime: '2026-12-04T10:00:00Z', cpu: { time: '2026-12-04T10:00:10Z', usageNanoCores: 250_000_000, usageCoreNanoSeconds: 2_500_000_000 } })],
        memory: expect.objectContaining({ workingSetBytes: 100 * 1024 * 1024 }),
      }),
    ]);
  });

  it('serves /metrics/resource with the stable metric names and sample timestamps', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/metrics/resource`);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    const ts = String(T0 + 10_000);
    expect(text).toContain('# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds\n# TYPE container_cpu_usage_seconds_total counter\n');
    expect(text).toContain(`container_cpu_usage_seconds_total{container="app",namespace="default",pod="busy"} 2.5 ${ts}\n`);
    expect(text).toContain(`container_memory_working_set_bytes{container="app",namespace="default",pod="busy"} 1.048576e+08 ${ts}\n`);
    expect(text).toContain(`node_cpu_usage_seconds_total 3 ${ts}\n`);
    expect(text).toContain(`pod_cpu_usage_seconds_total{namespace="default",pod="busy"} 2.5 ${ts}\n`);
    expect(text).toContain(`pod_memory_working_set_bytes{namespace="default",pod="busy"} 1.048576e+08 ${ts}\n`);
    expect(text).toContain('node_memory_working_set_bytes 3.73293056e+08');
    expect(text.endsWith('resource_scrape_error 0\n')).toBe(true);
    expect((await fetch(`http://127.0.0.1:${port}/metrics/resource`, { method: 'POST' })).status).toBe(405);
  });

  it("keeps a gone container's CPU time in the node's counter", () => {
    now = T0 + 20_000;
    const before = collector.collect(now).usageCoreNanoSeconds;
    workers = [];
    expect(collector.collect(now).usageCoreNanoSeconds).toBe(before);
  });

  it('counts on from what a container had reported when its annotation changes', () => {
    const w = worker('edited', { 'kemu.dev/cpu-usage': '1' }, true);
    const one = new NodeStatsCollector({ name: 'n', memoryCapacityBytes: 0, podWorkers: () => [w] }, T0);
    expect(one.collect(T0 + 10_000).pods[0]?.usageCoreNanoSeconds).toBe(10e9);
    const edited = { ...w, current: { ...w.current, metadata: { ...w.current.metadata, annotations: { 'kemu.dev/cpu-usage': '100m' } } } };
    const two = new NodeStatsCollector({ name: 'n', memoryCapacityBytes: 0, podWorkers: () => [edited] }, T0);
    expect(two.collect(T0 + 20_000).pods[0]?.usageCoreNanoSeconds).toBe(2e9);
    let current = w;
    const c = new NodeStatsCollector({ name: 'n', memoryCapacityBytes: 0, podWorkers: () => [current] }, T0);
    c.collect(T0 + 10_000);
    current = edited;
    expect(c.collect(T0 + 10_000).pods[0]?.usageCoreNanoSeconds).toBe(10e9);
    expect(c.collect(T0 + 20_000).pods[0]?.usageCoreNanoSeconds).toBe(11e9);
    expect(c.collect(T0 + 20_000).pods[0]?.usageNanoCores).toBe(1e8);
  });

  it("formats values as Go's FormatFloat 'g'", () => {
    expect([0, 2.5, 123456, 1234567, 0.0001, 0.00001].map(goFloat)).toEqual(['0', '2.5', '123456', '1.234567e+06', '0.0001', '1e-05']);
  });
});
