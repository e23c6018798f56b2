// What the autoscaler reads and writes besides its own objects, behind two small interfaces so tests can feed
// them: pod resource metrics from metrics.k8s.io/v1beta1 PodMetrics (as Kubernetes' resource metrics client;
// served by metrics-server) and a target's scale subresource, found from scaleTargetRef's group and kind in the
// resource table, or through discovery for custom resources (scale-targets.ts). Pods, Object and External
// metrics need a custom or external metrics API, which kemu does not serve: those report that none is registered.
import { tryParseQuantity, milliValue, type CrossVersionObjectReference, type Scale } from '@kemu/api';
import { parseDuration } from '@kemu/base';
import { resourcePath, statusErrorFromBody, type RestClient } from '@kemu/client';
import type { PodMetric, PodMetricsInfo } from './replica-calculator.ts';
import { ScaleTargets } from './scale-targets.ts';

export interface ResourceMetrics {
  metrics: PodMetricsInfo;
  timestamp: number;
}

export interface MetricsClient {
  /** GetResourceMetric: each pod's usage of the resource (one container's when container is set), in milli-units. */
  getResourceMetric(resource: string, namespace: string, selector: string, container: string): Promise<ResourceMetrics>;
}

export interface ScaleClient {
  get(ref: CrossVersionObjectReference, namespace: string): Promise<Scale>;
  update(ref: CrossVersionObjectReference, namespace: string, scale: Scale): Promise<Scale>;
}

export const NO_CUSTOM_METRICS_API = 'no custom metrics API (custom.metrics.k8s.io) registered';
export const NO_EXTERNAL_METRICS_API = 'no external metrics API (external.metrics.k8s.io) registered';

const METRICS_PODS = (ns: string) => `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(ns)}/pods`;

type Fields = Record<string, unknown>;
const rec = (v: unknown): Fields => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Fields) : {});
const recs = (v: unknown): Fields[] => (Array.isArray(v) ? v.map(rec) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function milli(q: unknown): number | undefined {
  if (tryParseQuantity(q) === undefined) return undefined;
  return milliValue(q as string);
}

/** getPodMetrics / getContainerMetrics over a PodMetricsList body. */
export function parsePodMetrics(body: unknown, resource: string, container: string): ResourceMetrics {
  const items = recs(rec(body).items);
  if (items.length === 0) throw new Error('no metrics returned from resource metrics API');
  const metrics: PodMetricsInfo = new Map();
  for (const item of items) {
    const meta = rec(item.metadata);
    const name = str(meta.name);
    const timestamp = Date.parse(str(item.timestamp));
    let windowMs = 0;
    try {
      windowMs = parseDuration(str(item.window) || '0s');
    } catch {
      windowMs = 0;
    }
    const containers = recs(item.containers);
    if (container !== '') {
      const c = containers.find((x) => x.name === container);
      if (!c) throw new Error(`failed to get container metrics: container ${container} not present in metrics for pod ${str(meta.namespace)}/${name}`);
      const v = milli(rec(c.usage)[resource]);
      if (v !== undefined) metrics.set(name, { value: v, timestamp, windowMs });
      continue;
    }
    let sum = 0;
    let missing = containers.length === 0;
    for (const c of containers) {
      const v = milli(rec(c.usage)[resource]);
      if (v === undefined) {
        missing = true;
        break;
      }
      sum += v;
    }
    if (!missing) metrics.set(name, { value: sum, timestamp, windowMs } satisfies PodMetric);
  }
  return { metrics, timestamp: Date.parse(str(items[0]?.timestamp)) };
}

/** Resource metrics through the apiserver's metrics.k8s.io. */
export class RestMetricsClient implements MetricsClient {
  constructor(private readonly client: RestClient) {}

  async getResourceMetric(resource: string, namespace: string, selector: string, container: string): Promise<ResourceMetrics> {
    const q = selector === '' ? '' : `?labelSelector=${encodeURIComponent(selector)}`;
    const res = await this.client.raw('GET', METRICS_PODS(namespace) + q);
    if (res.status < 200 || res.status > 299) throw new Error(`unable to fetch metrics from resource metrics API: ${statusErrorFromBody(res.status, res.body).message}`);
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      throw new Error('unable to fetch metrics from resource metrics API: the response is not JSON');
    }
    return parsePodMetrics(body, resource, container);
  }
}

/** The scale subresource through the REST client; custom resources' found through discovery (scale-targets.ts). */
export class RestScaleClient implements ScaleClient {
  private readonly targets: ScaleTargets;

  constructor(private readonly client: RestClient) {
    this.targets = new ScaleTargets(client);
  }

  async get(ref: CrossVersionObjectReference, namespace: string): Promise<Scale> {
    const r = await this.targets.resolve(ref);
    const res = await this.client.raw('GET', resourcePath(r, namespace, ref.name, 'scale'));
    if (res.status === 404) this.targets.forget(ref);
    if (res.status < 200 || res.status > 299) throw statusErrorFromBody(res.status, res.body);
    return JSON.parse(res.body) as Scale;
  }

  async update(ref: CrossVersionObjectReference, namespace: string, scale: Scale): Promise<Scale> {
    return this.client.update<Scale>(await this.targets.resolve(ref), namespace, scale, { subresource: 'scale' });
  }
}
