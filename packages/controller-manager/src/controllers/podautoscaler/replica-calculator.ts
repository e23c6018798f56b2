// Kubernetes' replica calculator (pkg/controller/podautoscaler/replica_calculator.go) for resource metrics:
// the usage ratio of the pods (utilization of their requests, or an average value), the tolerance band around
// 1.0, pods without metrics assumed at 100% (scale down) or 0% (scale up), not-yet-ready pods counted as 0%
// on a scale up only, and no scale when those assumptions would flip the direction. Values are milli-units
// (Quantity.MilliValue), so integer arithmetic truncates as Go's int64 does.
import { milliValue, type Pod } from '@kemu/api';

export interface PodMetric {
  /** Milli-units: millicores for cpu, milli-bytes for memory. */
  value: number;
  timestamp: number;
  windowMs: number;
}

export type PodMetricsInfo = Map<string, PodMetric>;

export interface CalculatorOptions {
  /** --horizontal-pod-autoscaler-tolerance */
  tolerance: number;
  /** --horizontal-pod-autoscaler-cpu-initialization-period */
  cpuInitializationPeriodMs: number;
  /** --horizontal-pod-autoscaler-initial-readiness-delay */
  delayOfInitialReadinessStatusMs: number;
  now: number;
}

export interface ReplicaProposal {
  replicas: number;
  /** The average utilization in percent (Utilization targets only). */
  utilization?: number;
  /** The average usage in milli-units. */
  rawAverage: number;
}

const time = (t: string | undefined): number | undefined => (t === undefined ? undefined : Date.parse(t));

/** groupPods: ready pods counted, Pending and not-yet-ready (cpu) pods unready, pods without metrics missing, deleted or failed ignored. */
export function groupPods(pods: Pod[], metrics: PodMetricsInfo, resource: string, o: CalculatorOptions) {
  let readyPodCount = 0;
  const unready = new Set<string>();
  const missing = new Set<string>();
  const ignored = new Set<string>();
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    if (pod.metadata.deletionTimestamp || pod.status?.phase === 'Failed') {
      ignored.add(name);
      continue;
    }
    if (pod.status?.phase === 'Pending') {
      unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const cond = pod.status?.conditions?.find((c) => c.type === 'Ready');
      const start = time(pod.status?.startTime);
      let isUnready: boolean;
      if (!cond || start === undefined) isUnready = true;
      else {
        const transition = time(cond.lastTransitionTime) ?? 0;
        if (start + o.cpuInitializationPeriodMs > o.now)
          // Still initializing: unready, or no full metric window since it became ready.
          isUnready = cond.status === 'False' || metric.timestamp < transition + metric.windowMs;
        // Unready and never ready since its start.
        else isUnready = cond.status === 'False' && start + o.delayOfInitialReadinessStatusMs > transition;
      }
      if (isUnready) {
        unready.add(name);
        continue;
      }
    }
    readyPodCount++;
  }
  return { readyPodCount, unready, missing, ignored };
}

/** calculatePodRequests: the pods' requests of the resource (one container's, or all regular and sidecar containers'). */
export function calculatePodRequests(pods: Pod[], container: string, resource: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    const containers = [...pod.spec.containers, ...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always')];
    let sum = 0;
    for (const c of containers) {
      if (container !== '' && container !== c.name) continue;
      const req = c.resources?.requests?.[resource];
      if (req === undefined) throw new Error(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata.name ?? ''}`);
      sum += milliValue(req);
    }
    out.set(pod.metadata.name ?? '', sum);
  }
  return out;
}

/** GetResourceUtilizationRatio: total usage over total requests of the pods that have both. */
export function utilizationRatio(metrics: PodMetricsInfo, requests: Map<string, number>, targetUtilization: number) {
  let metricsTotal = 0;
  let requestsTotal = 0;
  let entries = 0;
  for (const [name, m] of metrics) {
    const req = requests.get(name);
    if (req === undefined) continue;
    metricsTotal += m.value;
    requestsTotal += req;
    entries++;
  }
  if (requestsTotal === 0) throw new Error('no metrics returned matched known pods');
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return { ratio: utilization / targetUtilization, utilization, rawAverage: Math.trunc(metricsTotal / entries) };
}

/** GetMetricUsageRatio: the average value over the target. */
export function usageRatio(metrics: PodMetricsInfo, targetUsage: number) {
  let total = 0;
  for (const m of metrics.values()) total += m.value;
  const usage = Math.trunc(total / metrics.size);
  return { ratio: usage / targetUsage, usage };
}

function removeMetrics(metrics: PodMetricsInfo, names: Set<string>): void {
  for (const n of names) metrics.delete(n);
}

function prepare(pods: Pod[], metricsIn: PodMetricsInfo, resource: string, o: CalculatorOptions) {
  if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const metrics: PodMetricsInfo = new Map(metricsIn);
  const groups = groupPods(pods, metrics, resource, o);
  removeMetrics(metrics, groups.ignored);
  removeMetrics(metrics, groups.unready);
  if (metrics.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
  return { metrics, ...groups };
}

/**
 * The shared second half: with unready or missing pods, fill in assumed values, recompute the ratio, and keep the
 * current count when the change is within tolerance or the assumptions would reverse the direction.
 */
function finish(
  currentReplicas: number,
  ratio: number,
  g: ReturnType<typeof prepare>,
  o: CalculatorOptions,
  missingValue: (name: string, scaleDown: boolean) => number,
  recompute: (m: PodMetricsInfo) => number,
): number {
  const scaleUpWithUnready = g.unready.size > 0 && ratio > 1.0;
  if (!scaleUpWithUnready && g.missing.size === 0) {
    if (Math.abs(1.0 - ratio) <= o.tolerance) return currentReplicas;
    return Math.ceil(ratio * g.readyPodCount);
  }
  const zero = { value: 0, timestamp: 0, windowMs: 0 };
  if (g.missing.size > 0) {
    if (ratio < 1.0) for (const n of g.missing) g.metrics.set(n, { ...zero, value: missingValue(n, true) });
    else if (ratio > 1.0) for (const n of g.missing) g.metrics.set(n, zero);
  }
  if (scaleUpWithUnready) for (const n of g.unready) g.metrics.set(n, zero);
  const newRatio = recompute(g.metrics);
  if (Math.abs(1.0 - newRatio) <= o.tolerance || (ratio < 1.0 && newRatio > 1.0) || (ratio > 1.0 && newRatio < 1.0)) return currentReplicas;
  const newReplicas = Math.ceil(newRatio * g.metrics.size);
  if ((newRatio < 1.0 && newReplicas > currentReplicas) || (newRatio > 1.0 && newReplicas < currentReplicas)) return currentReplicas;
  return newReplicas;
}

/** GetResourceReplicas: a Utilization target (percent of the pods' requests). */
export function resourceReplicas(
  currentReplicas: number,
  targetUtilization: number,
  resource: string,
  container: string,
  pods: Pod[],
  metricsIn: PodMetricsInfo,
  o: CalculatorOptions,
): ReplicaProposal {
  const g = prepare(pods, metricsIn, resource, o);
  const requests = calculatePodRequests(pods, container, resource);
  const first = utilizationRatio(g.metrics, requests, targetUtilization);
  // On a scale down a pod without metrics counts as using all of its request (or the target, if above 100%).
  const fallback = Math.max(100, targetUtilization);
  const replicas = finish(
    currentReplicas,
    first.ratio,
    g,
    o,
    (n) => Math.trunc(((requests.get(n) ?? 0) * fallback) / 100),
    (m) => utilizationRatio(m, requests, targetUtilization).ratio,
  );
  return { replicas, utilization: first.utilization, rawAverage: first.rawAverage };
}

/** GetRawResourceReplicas: an AverageValue target (milli-units per pod). */
export function rawResourceReplicas(currentReplicas: number, targetUsage: number, resource: string, pods: Pod[], metricsIn: PodMetricsInfo, o: CalculatorOptions): ReplicaProposal {
  const g = prepare(pods, metricsIn, resource, o);
  const first = usageRatio(g.metrics, targetUsage);
  const replicas = finish(
    currentReplicas,
    first.ratio,
    g,
    o,
    () => targetUsage,
    (m) => usageRatio(m, targetUsage).ratio,
  );
  return { replicas, rawAverage: first.usage };
}
