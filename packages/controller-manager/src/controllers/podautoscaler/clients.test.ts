// The metrics.k8s.io and scale-target readers: PodMetrics summed per pod or read for one container, in
// milli-units, with Kubernetes' errors; a scaleTargetRef resolved to a resource with a scale subresource.
import { describe, expect, it } from 'vitest';
import { R } from '@kemu/api';
import { parsePodMetrics } from './clients.ts';
import { scaleTargetResource } from './scale-targets.ts';

const item = (name: string, containers: Record<string, Record<string, string>>) => ({
  metadata: { name, namespace: 'default' },
  timestamp: '2026-12-04T10:00:00Z',
  window: '15s',
  containers: Object.entries(containers).map(([n, usage]) => ({ name: n, usage })),
});

describe('parsePodMetrics', () => {
  const list = { kind: 'PodMetricsList', items: [item('a', { app: { cpu: '250m', memory: '10Mi' }, side: { cpu: '1500u' } }), item('b', { app: { cpu: '1' } })] };

  it('sums the containers of each pod (millicores, rounded up as MilliValue)', () => {
    const r = parsePodMetrics(list, 'cpu', '');
    expect([...r.metrics].map(([n, m]) => [n, m.value, m.windowMs])).toEqual([
      ['a', 252, 15_000],
      ['b', 1000, 15_000],
    ]);
    expect(r.timestamp).toBe(Date.parse('2026-12-04T10:00:00Z'));
  });

  it('leaves out a pod whose containers lack the resource; reads one container when asked', () => {
    expect([...parsePodMetrics(list, 'memory', '').metrics.keys()]).toEqual([]);
    expect([...parsePodMetrics(list, 'cpu', 'app').metrics].map(([n, m]) => [n, m.value])).toEqual([
      ['a', 250],
      ['b', 1000],
    ]);
    expect(() => parsePodMetrics(list, 'cpu', 'side')).toThrow('failed to get container metrics: container side not present in metrics for pod default/b');
  });

  it('an empty list is what metrics-server answers before its first scrape', () => {
    expect(() => parsePodMetrics({ items: [] }, 'cpu', '')).toThrow('no metrics returned from resource metrics API');
  });
});

describe('scaleTargetResource', () => {
  it('finds the kind in its group whatever the version, and refuses kinds without /scale', () => {
    expect(scaleTargetResource({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' })).toBe(R.deployments);
    expect(scaleTargetResource({ apiVersion: 'v1', kind: 'ReplicationController', name: 'x' })).toBe(R.replicationcontrollers);
    expect(() => scaleTargetResource({ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'x' })).toThrow('no matches for kind "DaemonSet" in group "apps"');
  });
});
