// metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics, answered as metrics-server answers them: each node's
// kubelet /stats/summary is scraped through the apiserver's kubelet client and kept for the metric resolution
// (metrics-server's --metric-resolution, 15 s), so many `kubectl top` or HPA reads cost one scrape per node.
// A node whose kubelet cannot be reached has no metrics (left out of lists, NotFound by name), as in
// metrics-server. Usage is the kubelet's instantaneous rate; `window` is the resolution.
import { errors, R, type KubeObject } from '@kemu/api';
import type { ApiContext } from '../context.ts';
import { buildFilter } from '../registry/filter.ts';
import { listFromStore } from '../registry/list.ts';
import { checkListOptions } from '../registry/list-options.ts';
import { METRICS_GROUP, METRICS_VERSION, NODE_METRICS, POD_METRICS } from './resources.ts';
import { parseSummary, type Summary, type Usage } from './summary.ts';

export const METRIC_RESOLUTION_MS = 15_000;
const PREFIX = `/apis/${METRICS_GROUP}/${METRICS_VERSION}/`;
const API_VERSION = `${METRICS_GROUP}/${METRICS_VERSION}`;

type Path = { kind: 'nodes'; name?: string } | { kind: 'pods'; namespace?: string; name?: string };

/** The metrics path a request names, undefined for any other path. */
export function metricsPath(pathname: string): Path | undefined {
  if (!pathname.startsWith(PREFIX)) return undefined;
  const p = pathname.slice(PREFIX.length).split('/').filter((s) => s !== '');
  if (p[0] === 'nodes' && p.length <= 2) return { kind: 'nodes', ...(p[1] ? { name: p[1] } : {}) };
  if (p[0] === 'pods' && p.length === 1) return { kind: 'pods' };
  if (p[0] === 'namespaces' && p[1] && p[2] === 'pods' && p.length <= 4) return { kind: 'pods', namespace: p[1], ...(p[3] ? { name: p[3] } : {}) };
  return undefined;
}

/** Canonical quantities, as resource.Quantity prints NewScaledQuantity(n, Nano) and NewQuantity(b, BinarySI). */
export function cpuQuantity(nanoCores: number): string {
  const n = Math.round(nanoCores);
  if (n === 0) return '0';
  if (n % 1e9 === 0) return String(n / 1e9);
  if (n % 1e6 === 0) return `${n / 1e6}m`;
  if (n % 1e3 === 0) return `${n / 1e3}u`;
  return `${n}n`;
}

export function memoryQuantity(bytes: number): string {
  let b = Math.round(bytes);
  if (b === 0) return '0';
  for (const suffix of ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi']) {
    if (b % 1024 !== 0 || suffix === 'Pi') return `${b}${suffix}`;
    b /= 1024;
  }
  return String(b);
}

const usage = (u: Usage) => ({ cpu: cpuQuantity(u.nanoCores), memory: memoryQuantity(u.workingSetBytes) });
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const WINDOW = `${METRIC_RESOLUTION_MS / 1000}s`;

/** Scrapes kubelets, one /stats/summary per node per resolution. */
export class SummaryScraper {
  private readonly cache = new Map<string, { at: number; summary: Promise<Summary | undefined> }>();

  constructor(private readonly ctx: ApiContext) {}

  summary(node: KubeObject): Promise<Summary | undefined> {
    const name = node.metadata.name ?? '';
    const now = this.ctx.clock.now();
    const hit = this.cache.get(name);
    if (hit && now - hit.at < METRIC_RESOLUTION_MS) return hit.summary;
    const summary = this.scrape(node);
    this.cache.set(name, { at: now, summary });
    return summary;
  }

  private async scrape(node: KubeObject): Promise<Summary | undefined> {
    const kubelet = this.ctx.kubeletClient;
    try {
      const res = await kubelet.get(kubelet.url(kubelet.connectionInfo(node), '/stats/summary', ''));
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      if ((res.statusCode ?? 0) !== 200) return undefined;
      return parseSummary(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
    } catch {
      return undefined;
    }
  }
}

async function summaries(scraper: SummaryScraper, nodes: KubeObject[]): Promise<Map<string, Summary>> {
  const out = new Map<string, Summary>();
  const got = await Promise.all(nodes.map((n) => scraper.summary(n)));
  got.forEach((s, i) => {
    if (s) out.set(nodes[i]?.metadata.name ?? '', s);
  });
  return out;
}

function nodeMetrics(node: KubeObject, s: Summary): KubeObject {
  const m = node.metadata;
  return {
    kind: 'NodeMetrics',
    apiVersion: API_VERSION,
    metadata: { name: m.name ?? '', creationTimestamp: rfc3339(Date.now()), ...(m.labels ? { labels: m.labels } : {}) },
    timestamp: rfc3339(s.node.time),
    window: WINDOW,
    usage: usage(s.node),
  };
}

function podMetrics(pod: KubeObject, s: Summary): KubeObject | undefined {
  const m = pod.metadata;
  const p = s.pods.find((x) => x.namespace === (m.namespace ?? '') && x.name === (m.name ?? ''));
  if (!p || p.containers.length === 0) return undefined;
  return {
    kind: 'PodMetrics',
    apiVersion: API_VERSION,
    metadata: { name: m.name ?? '', namespace: m.namespace ?? '', creationTimestamp: rfc3339(Date.now()), ...(m.labels ? { labels: m.labels } : {}) },
    timestamp: rfc3339(p.time),
    window: WINDOW,
    containers: p.containers.map((c) => ({ name: c.name, usage: usage(c) })),
  };
}

/** Answers a metrics.k8s.io request (GET only): a NodeMetrics/PodMetrics or its List. */
export async function serveMetrics(ctx: ApiContext, scraper: SummaryScraper, method: string, path: Path, query: URLSearchParams): Promise<KubeObject> {
  if (method !== 'GET') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
  const name = path.name;
  if (name === undefined) checkListOptions(query);
  if (path.kind === 'nodes') {
    const filter = name === undefined ? buildFilter(R.nodes, ctx.ext, query.get('labelSelector'), query.get('fieldSelector')) : undefined;
    const nodes = name !== undefined ? [await ctx.registry.get(R.nodes, undefined, name).catch(() => undefined)].filter((n): n is KubeObject => n !== undefined) : (await listFromStore(ctx.backend, R.nodes, filter ? { filter } : {})).items;
    const got = await summaries(scraper, nodes);
    const items = nodes.flatMap((n) => {
      const s = got.get(n.metadata.name ?? '');
      return s ? [nodeMetrics(n, s)] : [];
    });
    if (name !== undefined) return items[0] ?? notFound(NODE_METRICS.plural, name);
    return { kind: NODE_METRICS.listKind, apiVersion: API_VERSION, metadata: {}, items } as KubeObject;
  }
  const filter = name === undefined ? buildFilter(R.pods, ctx.ext, query.get('labelSelector'), query.get('fieldSelector')) : undefined;
  const pods =
    name !== undefined
      ? [await ctx.registry.get(R.pods, path.namespace, name).catch(() => undefined)].filter((p): p is KubeObject => p !== undefined)
      : (await listFromStore(ctx.backend, R.pods, { ...(path.namespace !== undefined ? { namespace: path.namespace } : {}), ...(filter ? { filter } : {}) })).items;
  const nodeNames = new Set(pods.map((p) => (p.spec as { nodeName?: string } | undefined)?.nodeName ?? '').filter((n) => n !== ''));
  const nodes = (await Promise.all([...nodeNames].map((n) => ctx.registry.get(R.nodes, undefined, n).catch(() => undefined)))).filter((n): n is KubeObject => n !== undefined);
  const got = await summaries(scraper, nodes);
  const items = pods.flatMap((p) => {
    const s = got.get((p.spec as { nodeName?: string } | undefined)?.nodeName ?? '');
    const pm = s ? podMetrics(p, s) : undefined;
    return pm ? [pm] : [];
  });
  if (name !== undefined) return items[0] ?? notFound(POD_METRICS.plural, name);
  return { kind: POD_METRICS.listKind, apiVersion: API_VERSION, metadata: {}, items } as KubeObject;
}

function notFound(plural: string, name: string): never {
  throw errors.notFound(`${plural}.${METRICS_GROUP}`, name);
}
