// autoscaling/v2 HorizontalPodAutoscaler (stored) ⇄ autoscaling/v1 (kubernetes pkg/apis/autoscaling/v1/conversion.go):
// v1's targetCPUUtilizationPercentage is v2's Resource cpu Utilization metric and currentCPUUtilizationPercentage
// its current value. What v1 has no field for rides in annotations, as Kubernetes does, so a v1 read-modify-write
// keeps it: the other metrics (autoscaling.alpha.kubernetes.io/metrics) and their current values
// (…/current-metrics) in v1's metric form, the conditions (…/conditions) and the behavior (…/behavior).
import type { KubeObject } from '@kemu/api';

type Fields = Record<string, unknown>;

export const HPA_ANNOTATIONS = {
  metrics: 'autoscaling.alpha.kubernetes.io/metrics',
  currentMetrics: 'autoscaling.alpha.kubernetes.io/current-metrics',
  conditions: 'autoscaling.alpha.kubernetes.io/conditions',
  behavior: 'autoscaling.alpha.kubernetes.io/behavior',
} as const;

const isFields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const fieldsOf = (v: unknown): Fields => (isFields(v) ? v : {});
const listOf = (v: unknown): Fields[] => (Array.isArray(v) ? v.filter(isFields) : []);

/** Copies the defined values of `from` (undefined dropped, as omitempty). */
function compact(from: Fields): Fields {
  const out: Fields = {};
  for (const [k, v] of Object.entries(from)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

const isCpuUtilization = (m: Fields): boolean =>
  m.type === 'Resource' && fieldsOf(m.resource).name === 'cpu' && fieldsOf(fieldsOf(m.resource).target).type === 'Utilization';

// --- one metric, v2 → v1 form (for the annotations) and back ---

function specToV1(m: Fields): Fields {
  const t = (src: Fields) => fieldsOf(src.target);
  switch (m.type) {
    case 'Resource': {
      const r = fieldsOf(m.resource);
      return { type: m.type, resource: compact({ name: r.name, targetAverageUtilization: t(r).averageUtilization, targetAverageValue: t(r).averageValue }) };
    }
    case 'ContainerResource': {
      const r = fieldsOf(m.containerResource);
      return { type: m.type, containerResource: compact({ name: r.name, targetAverageUtilization: t(r).averageUtilization, targetAverageValue: t(r).averageValue, container: r.container }) };
    }
    case 'Pods': {
      const p = fieldsOf(m.pods);
      const id = fieldsOf(p.metric);
      return { type: m.type, pods: compact({ metricName: id.name, targetAverageValue: t(p).averageValue, selector: id.selector }) };
    }
    case 'Object': {
      const o = fieldsOf(m.object);
      const id = fieldsOf(o.metric);
      return { type: m.type, object: compact({ target: o.describedObject, metricName: id.name, targetValue: t(o).value, selector: id.selector, averageValue: t(o).averageValue }) };
    }
    case 'External': {
      const e = fieldsOf(m.external);
      const id = fieldsOf(e.metric);
      return { type: m.type, external: compact({ metricName: id.name, metricSelector: id.selector, targetValue: t(e).value, targetAverageValue: t(e).averageValue }) };
    }
    default:
      return m;
  }
}

/** A v2 MetricTarget from v1's flattened fields: utilization wins, then an average, then a value. */
function target(utilization: unknown, average: unknown, value?: unknown): Fields {
  if (utilization !== undefined) return { type: 'Utilization', averageUtilization: utilization };
  if (average !== undefined) return { type: 'AverageValue', averageValue: average };
  return compact({ type: 'Value', value });
}

function specFromV1(m: Fields): Fields {
  switch (m.type) {
    case 'Resource': {
      const r = fieldsOf(m.resource);
      return { type: m.type, resource: { name: r.name, target: target(r.targetAverageUtilization, r.targetAverageValue) } };
    }
    case 'ContainerResource': {
      const r = fieldsOf(m.containerResource);
      return { type: m.type, containerResource: { name: r.name, target: target(r.targetAverageUtilization, r.targetAverageValue), container: r.container } };
    }
    case 'Pods': {
      const p = fieldsOf(m.pods);
      return { type: m.type, pods: { metric: compact({ name: p.metricName, selector: p.selector }), target: { type: 'AverageValue', averageValue: p.targetAverageValue } } };
    }
    case 'Object': {
      const o = fieldsOf(m.object);
      const tgt = o.averageValue !== undefined ? { type: 'AverageValue', averageValue: o.averageValue } : { type: 'Value', value: o.targetValue };
      return { type: m.type, object: { describedObject: o.target, target: tgt, metric: compact({ name: o.metricName, selector: o.selector }) } };
    }
    case 'External': {
      const e = fieldsOf(m.external);
      return { type: m.type, external: { metric: compact({ name: e.metricName, selector: e.metricSelector }), target: target(undefined, e.targetAverageValue, e.targetValue) } };
    }
    default:
      return m;
  }
}

function statusToV1(m: Fields): Fields {
  const c = (src: Fields) => fieldsOf(src.current);
  switch (m.type) {
    case 'Resource': {
      const r = fieldsOf(m.resource);
      return { type: m.type, resource: compact({ name: r.name, currentAverageUtilization: c(r).averageUtilization, currentAverageValue: c(r).averageValue }) };
    }
    case 'ContainerResource': {
      const r = fieldsOf(m.containerResource);
      return { type: m.type, containerResource: compact({ name: r.name, currentAverageUtilization: c(r).averageUtilization, currentAverageValue: c(r).averageValue, container: r.container }) };
    }
    case 'Pods': {
      const p = fieldsOf(m.pods);
      const id = fieldsOf(p.metric);
      return { type: m.type, pods: compact({ metricName: id.name, currentAverageValue: c(p).averageValue, selector: id.selector }) };
    }
    case 'Object': {
      const o = fieldsOf(m.object);
      const id = fieldsOf(o.metric);
      return { type: m.type, object: compact({ target: o.describedObject, metricName: id.name, currentValue: c(o).value, selector: id.selector, averageValue: c(o).averageValue }) };
    }
    case 'External': {
      const e = fieldsOf(m.external);
      const id = fieldsOf(e.metric);
      return { type: m.type, external: compact({ metricName: id.name, metricSelector: id.selector, currentValue: c(e).value, currentAverageValue: c(e).averageValue }) };
    }
    default:
      return m;
  }
}

function statusFromV1(m: Fields): Fields {
  switch (m.type) {
    case 'Resource': {
      const r = fieldsOf(m.resource);
      return { type: m.type, resource: { name: r.name, current: compact({ averageUtilization: r.currentAverageUtilization, averageValue: r.currentAverageValue }) } };
    }
    case 'ContainerResource': {
      const r = fieldsOf(m.containerResource);
      return { type: m.type, containerResource: { name: r.name, current: compact({ averageUtilization: r.currentAverageUtilization, averageValue: r.currentAverageValue }), container: r.container } };
    }
    case 'Pods': {
      const p = fieldsOf(m.pods);
      return { type: m.type, pods: { metric: compact({ name: p.metricName, selector: p.selector }), current: compact({ averageValue: p.currentAverageValue }) } };
    }
    case 'Object': {
      const o = fieldsOf(m.object);
      return { type: m.type, object: { metric: compact({ name: o.metricName, selector: o.selector }), current: compact({ value: o.currentValue, averageValue: o.averageValue }), describedObject: o.target } };
    }
    case 'External': {
      const e = fieldsOf(m.external);
      return { type: m.type, external: { metric: compact({ name: e.metricName, selector: e.metricSelector }), current: compact({ value: e.currentValue, averageValue: e.currentAverageValue }) } };
    }
    default:
      return m;
  }
}

function parseList(text: string | undefined): Fields[] {
  if (text === undefined) return [];
  try {
    return listOf(JSON.parse(text));
  } catch {
    return [];
  }
}

// --- the object ---

export function hpaV2ToV1(o: KubeObject): KubeObject {
  const src = o as Fields;
  const spec = fieldsOf(src.spec);
  const status = isFields(src.status) ? src.status : undefined;
  const annotations: Record<string, string> = { ...(o.metadata.annotations ?? {}) };

  const metrics = listOf(spec.metrics);
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  if (others.length > 0) annotations[HPA_ANNOTATIONS.metrics] = JSON.stringify(others.map(specToV1));
  const behavior = spec.behavior;
  if (isFields(behavior)) annotations[HPA_ANNOTATIONS.behavior] = JSON.stringify(behavior);

  const outSpec: Fields = compact({
    scaleTargetRef: spec.scaleTargetRef ?? {},
    minReplicas: spec.minReplicas,
    maxReplicas: spec.maxReplicas ?? 0,
    targetCPUUtilizationPercentage: cpu ? fieldsOf(fieldsOf(cpu.resource).target).averageUtilization : undefined,
  });

  let outStatus: Fields = { currentReplicas: 0, desiredReplicas: 0 };
  if (status) {
    const current = listOf(status.currentMetrics);
    const cpuNow = current.find((m) => m.type === 'Resource' && fieldsOf(m.resource).name === 'cpu' && fieldsOf(fieldsOf(m.resource).current).averageUtilization !== undefined);
    const otherNow = current.filter((m) => m !== cpuNow);
    if (otherNow.length > 0) annotations[HPA_ANNOTATIONS.currentMetrics] = JSON.stringify(otherNow.map(statusToV1));
    const conditions = listOf(status.conditions);
    if (conditions.length > 0) annotations[HPA_ANNOTATIONS.conditions] = JSON.stringify(conditions);
    outStatus = compact({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas ?? 0,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentCPUUtilizationPercentage: cpuNow ? fieldsOf(fieldsOf(cpuNow.resource).current).averageUtilization : undefined,
    });
  }
  const metadata = { ...o.metadata };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  return { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata, spec: outSpec, status: outStatus } as KubeObject;
}

export function hpaV1ToV2(o: KubeObject): KubeObject {
  const src = o as Fields;
  const spec = fieldsOf(src.spec);
  const status = fieldsOf(src.status);
  const annotations: Record<string, string> = { ...(o.metadata.annotations ?? {}) };
  const take = (k: string): string | undefined => {
    const v = annotations[k];
    delete annotations[k];
    return v;
  };

  const metrics = parseList(take(HPA_ANNOTATIONS.metrics)).map(specFromV1);
  if (typeof spec.targetCPUUtilizationPercentage === 'number')
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
  let behavior: Fields | undefined;
  const behaviorText = take(HPA_ANNOTATIONS.behavior);
  if (behaviorText !== undefined) {
    try {
      const parsed: unknown = JSON.parse(behaviorText);
      if (isFields(parsed)) behavior = parsed;
    } catch {
      behavior = undefined;
    }
  }
  const current: Fields[] = [];
  if (typeof status.currentCPUUtilizationPercentage === 'number')
    current.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } });
  current.push(...parseList(take(HPA_ANNOTATIONS.currentMetrics)).map(statusFromV1));
  const conditions = parseList(take(HPA_ANNOTATIONS.conditions));

  const outSpec = compact({
    scaleTargetRef: spec.scaleTargetRef ?? {},
    minReplicas: spec.minReplicas,
    maxReplicas: spec.maxReplicas ?? 0,
    metrics: metrics.length > 0 ? metrics : undefined,
    behavior,
  });
  const outStatus = compact({
    observedGeneration: status.observedGeneration,
    lastScaleTime: status.lastScaleTime,
    currentReplicas: status.currentReplicas || undefined,
    desiredReplicas: status.desiredReplicas ?? 0,
    currentMetrics: current.length > 0 ? current : undefined,
    conditions: conditions.length > 0 ? conditions : undefined,
  });
  const metadata = { ...o.metadata };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  return { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata, spec: outSpec, status: outStatus } as KubeObject;
}
