// The replica calculator, table-driven after Kubernetes' replica_calculator_test.go: scale up and down on
// utilization and average value, the tolerance band, pods without metrics, unready and pending pods.
import { describe, expect, it } from 'vitest';
import type { Pod } from '@kemu/api';
import { rawResourceReplicas, resourceReplicas, type CalculatorOptions, type PodMetricsInfo } from './replica-calculator.ts';

const NOW = Date.parse('2026-12-04T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const opts: CalculatorOptions = { tolerance: 0.1, cpuInitializationPeriodMs: 300_000, delayOfInitialReadinessStatusMs: 30_000, now: NOW };

interface PodSpec {
  request?: string;
  ready?: 'True' | 'False';
  phase?: string;
  /** Started this long ago (default 10 minutes: past the cpu initialization period). */
  startedAgoMs?: number;
  readySinceAgoMs?: number;
  deleting?: boolean;
}

function pods(specs: PodSpec[]): Pod[] {
  return specs.map((s, i) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p${i}`, namespace: 'default', ...(s.deleting ? { deletionTimestamp: iso(NOW) } : {}) },
    spec: { containers: [{ name: 'app', image: 'php', resources: s.request === undefined ? {} : { requests: { cpu: s.request } } }] },
    status: {
      phase: s.phase ?? 'Running',
      startTime: iso(NOW - (s.startedAgoMs ?? 600_000)),
      conditions: [{ type: 'Ready', status: s.ready ?? 'True', lastTransitionTime: iso(NOW - (s.readySinceAgoMs ?? 590_000)) }],
    },
  })) as Pod[];
}

/** Usage per pod (millicores); undefined = no metric for that pod. */
function metrics(levels: (number | undefined)[]): PodMetricsInfo {
  const m: PodMetricsInfo = new Map();
  levels.forEach((v, i) => v !== undefined && m.set(`p${i}`, { value: v, timestamp: NOW - 1000, windowMs: 15_000 }));
  return m;
}

const ready = (n: number, request = '1'): PodSpec[] => Array.from({ length: n }, () => ({ request }));

describe('resourceReplicas (Utilization)', () => {
  const cases: { name: string; current: number; pods: PodSpec[]; levels: (number | undefined)[]; target: number; want: number; utilization: number; raw: number; o?: Partial<CalculatorOptions> }[] = [
    { name: 'scale up', current: 3, pods: ready(3), levels: [300, 500, 700], target: 30, want: 5, utilization: 50, raw: 500 },
    { name: 'scale down', current: 5, pods: ready(5), levels: [100, 300, 500, 250, 250], target: 50, want: 3, utilization: 28, raw: 280 },
    { name: 'within tolerance', current: 3, pods: [{ request: '0.9' }, { request: '1.0' }, { request: '1.1' }], levels: [1010, 1030, 1020], target: 100, want: 3, utilization: 102, raw: 1020 },
    { name: 'a wider tolerance keeps the count', current: 3, pods: ready(3), levels: [600, 700, 800], target: 50, want: 3, utilization: 70, raw: 700, o: { tolerance: 0.5 } },
    { name: 'unready pod counts 0% on a scale up', current: 3, pods: [{ request: '1', ready: 'False', startedAgoMs: 60_000, readySinceAgoMs: 60_000 }, ...ready(2)], levels: [100, 500, 700], target: 30, want: 4, utilization: 60, raw: 600 },
    { name: 'pending pod counts 0% on a scale up', current: 3, pods: [{ request: '1', phase: 'Pending' }, ...ready(2)], levels: [undefined, 500, 700], target: 30, want: 4, utilization: 60, raw: 600 },
    { name: 'unready pods are left out of a scale down', current: 3, pods: [{ request: '1', ready: 'False', startedAgoMs: 60_000, readySinceAgoMs: 60_000 }, ...ready(2)], levels: [100, 100, 100], target: 50, want: 1, utilization: 10, raw: 100 },
    { name: 'missing metrics count 100% on a scale down', current: 4, pods: ready(4), levels: [100, 100, 100, undefined], target: 50, want: 3, utilization: 10, raw: 100 },
    { name: 'missing metrics count 0% on a scale up', current: 3, pods: ready(3), levels: [900, 900, undefined], target: 50, want: 4, utilization: 90, raw: 900 },
    { name: 'missing metrics that would reverse the direction keep the count', current: 4, pods: ready(4), levels: [400, 95, undefined, undefined], target: 50, want: 4, utilization: 24, raw: 247 },
    { name: 'missing metric at exactly the target changes nothing', current: 2, pods: ready(2), levels: [1000, undefined], target: 100, want: 2, utilization: 100, raw: 1000 },
    { name: 'deleted and failed pods are ignored', current: 3, pods: [{ request: '1', deleting: true }, { request: '1', phase: 'Failed' }, { request: '1' }], levels: [5000, 5000, 1000], target: 50, want: 2, utilization: 100, raw: 1000 },
    // Ready 5 s ago, within the cpu initialization period: its sample predates a full window, so it counts 0%.
    { name: 'a pod still initializing counts 0% on a scale up', current: 2, pods: [{ request: '1', startedAgoMs: 20_000, readySinceAgoMs: 5000 }, { request: '1' }], levels: [900, 1500], target: 50, want: 3, utilization: 150, raw: 1500 },
    { name: 'a pod still initializing can cancel a scale up', current: 2, pods: [{ request: '1', startedAgoMs: 20_000, readySinceAgoMs: 5000 }, { request: '1' }], levels: [900, 900], target: 50, want: 2, utilization: 90, raw: 900 },
  ];
  for (const c of cases)
    it(c.name, () => {
      const r = resourceReplicas(c.current, c.target, 'cpu', '', pods(c.pods), metrics(c.levels), { ...opts, ...c.o });
      expect(r).toEqual({ replicas: c.want, utilization: c.utilization, rawAverage: c.raw });
    });

  it('reports what Kubernetes reports when it cannot compute', () => {
    expect(() => resourceReplicas(1, 50, 'cpu', '', [], metrics([]), opts)).toThrow('no pods returned by selector while calculating replica count');
    expect(() => resourceReplicas(1, 50, 'cpu', '', pods([{ request: '1', phase: 'Pending' }]), metrics([]), opts)).toThrow('did not receive metrics for targeted pods (pods might be unready)');
    expect(() => resourceReplicas(1, 50, 'cpu', '', pods([{}]), metrics([100]), opts)).toThrow('missing request for cpu in container app of Pod p0');
  });
});

describe('rawResourceReplicas (AverageValue)', () => {
  it('scales on the average per pod against the target', () => {
    expect(rawResourceReplicas(3, 200, 'cpu', pods(ready(3)), metrics([300, 500, 700]), opts)).toEqual({ replicas: 8, rawAverage: 500 });
    // A pod without metrics counts as the target on a scale down: (3×100 + 500) / 4 = 200 → ratio 0.4 → 2.
    expect(rawResourceReplicas(4, 500, 'cpu', pods(ready(4)), metrics([100, 100, 100, undefined]), opts)).toEqual({ replicas: 2, rawAverage: 100 });
    expect(rawResourceReplicas(3, 500, 'cpu', pods(ready(3)), metrics([520, 500, 480]), opts)).toEqual({ replicas: 3, rawAverage: 500 });
  });
});
