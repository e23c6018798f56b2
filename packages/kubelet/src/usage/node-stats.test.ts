// Usage driven by traffic: each request a container served costs its CPU per request, averaged over the usage
// window and capped at the CPU limit; the counter grows with it and stops once the load has passed.
import { describe, expect, it } from 'vitest';
import type { Pod } from '@kemu/api';
import { PodTraffic } from '../proxy/traffic.ts';
import { NodeStatsCollector, type StatsPodSource } from './node-stats.ts';

const T0 = Date.parse('2026-12-04T10:00:00Z');

function php(annotations: Record<string, string> = {}): StatsPodSource {
  const current: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'php-apache-1', namespace: 'default', uid: 'u1', annotations },
    spec: { containers: [{ name: 'php-apache', image: 'registry.k8s.io/hpa-example', resources: { requests: { cpu: '200m' }, limits: { cpu: '500m' } } }] },
  };
  return { current, lifecycle: { startTime: T0, containers: [{ name: 'php-apache', state: { kind: 'running', startedAt: T0, exitAt: null, containerID: 'containerd://php' } }] } };
}

function setup(pod: StatsPodSource) {
  const traffic = new PodTraffic();
  const stats = new NodeStatsCollector({ name: 'n', memoryCapacityBytes: 1e10, podWorkers: () => [pod] }, T0, { source: () => traffic, windowMs: 2_000 });
  const cpu = (now: number) => {
    const c = stats.collect(now).pods[0]?.containers[0];
    return { rate: (c?.usageNanoCores ?? 0) / 1e6, total: (c?.usageCoreNanoSeconds ?? 0) / 1e9 };
  };
  return { traffic, cpu };
}

describe('usage from traffic', () => {
  it('adds cost × rate to the base, then falls back to the base once the window has passed', () => {
    // 2 requests/s at 10m each (annotation): 20m over the 20m base (10% of the request).
    const { traffic, cpu } = setup(php({ 'kemu.dev/cpu-per-request': '10m' }));
    expect(cpu(T0 + 1_000).rate).toBeCloseTo(20);
    for (let t = T0 + 1_000; t < T0 + 11_000; t += 500) traffic.add('default', 'php-apache-1', 'php-apache', t);
    const busy = cpu(T0 + 11_000);
    expect(busy.rate).toBeCloseTo(40);
    const idle = cpu(T0 + 20_000);
    expect(idle.rate).toBeCloseTo(20);
    // The base's 20m over 20 s plus 20 requests × 10m.
    expect(idle.total).toBeCloseTo(0.4 + 0.2, 5);
    expect(cpu(T0 + 30_000).total).toBeCloseTo(0.6 + 0.2, 5);
  });

  it('uses the image default (hpa-example: 100 ms per request) and caps at the limit, counter included', () => {
    const { traffic, cpu } = setup(php());
    cpu(T0);
    // 20 requests/s would be 2 cores: capped at the 500m limit.
    for (let t = T0; t < T0 + 10_000; t += 50) traffic.add('default', 'php-apache-1', 'php-apache', t);
    let last = 0;
    for (let t = T0 + 1_000; t <= T0 + 10_000; t += 1_000) {
      const u = cpu(t);
      expect(u.rate).toBeCloseTo(500);
      expect(u.total).toBeGreaterThanOrEqual(last);
      expect(u.total - last).toBeLessThanOrEqual(0.5 + 1e-9);
      last = u.total;
    }
    expect(last).toBeCloseTo(5, 5);
    // 3 requests/s: 20m + 300m.
    for (let t = T0 + 10_000; t < T0 + 20_000; t += 1000 / 3) traffic.add('default', 'php-apache-1', 'php-apache', t);
    expect(cpu(T0 + 20_000).rate).toBeCloseTo(320, -1);
  });

  it('a short window from the pod annotation', () => {
    const { traffic, cpu } = setup(php({ 'kemu.dev/cpu-usage-window': '1s' }));
    traffic.add('default', 'php-apache-1', 'php-apache', T0 + 500);
    expect(cpu(T0 + 1_000).rate).toBeCloseTo(120);
    expect(cpu(T0 + 1_600).rate).toBeCloseTo(20);
  });
});
