// metrics-server's REST endpoints for metrics.k8s.io/v1beta1: discovery (/apis, the group, the version's
// APIResourceList), NodeMetrics and PodMetrics by name and in lists (all namespaces too) with labelSelector and
// fieldSelector, answered from the informers' Nodes and Pods and the storage's usage. As metrics-server: lists are
// sorted by (namespace,) name and leave out what has no metrics yet and pods not Running; a get names the
// object the lister lacks (`node "x" not found`) or the metrics it lacks (`nodemetrics.metrics.k8s.io "x" not
// found`, `podmetrics.metrics.k8s.io "ns/x" not found`); anything but GET is 405.
import type http from 'node:http';
import { errors, StatusError, toStatus, type Node, type Pod } from '@kemu/api';
import type { ResourceAttributes } from '@kemu/client';
import { cpuQuantity, memoryQuantity } from './quantity.ts';
import { API_VERSION, METRICS_GROUP, METRICS_VERSION, NODE_METRICS, POD_METRICS, apiGroup, apiResourceList } from './resources.ts';
import { parseFieldSelector, parseLabelSelector } from './selector.ts';
import type { MetricsStorage, Usage } from './storage.ts';

export interface MetricsApiDeps {
  nodes(): readonly Node[];
  pods(): readonly Pod[];
  storage: MetricsStorage;
  now(): number;
}

const PREFIX = `/apis/${METRICS_GROUP}/${METRICS_VERSION}`;

export type MetricsPath = { kind: 'nodes'; name?: string } | { kind: 'pods'; namespace?: string; name?: string };

/** The metrics resource a path names, undefined for any other path. */
export function metricsPath(pathname: string): MetricsPath | undefined {
  if (!pathname.startsWith(`${PREFIX}/`)) return undefined;
  const p = pathname.slice(PREFIX.length + 1).split('/');
  if (p.some((s) => s === '')) return undefined;
  if (p[0] === 'nodes' && p.length <= 2) return { kind: 'nodes', ...(p[1] ? { name: p[1] } : {}) };
  if (p[0] === 'pods' && p.length === 1) return { kind: 'pods' };
  if (p[0] === 'namespaces' && p[1] && p[2] === 'pods' && p.length <= 4) return { kind: 'pods', namespace: p[1], ...(p[3] ? { name: p[3] } : {}) };
  return undefined;
}

/** RequestInfo of a metrics request, for authorization (get or list of nodes/pods in metrics.k8s.io). */
export function requestInfo(req: http.IncomingMessage, pathname: string): ResourceAttributes | undefined {
  const p = metricsPath(pathname);
  if (!p) return undefined;
  const method = (req.method ?? 'GET').toUpperCase();
  const verb = method === 'GET' || method === 'HEAD' ? (p.name === undefined ? 'list' : 'get') : method === 'POST' ? 'create' : method === 'DELETE' ? 'delete' : method === 'PATCH' ? 'patch' : 'update';
  return {
    verb,
    group: METRICS_GROUP,
    version: METRICS_VERSION,
    resource: p.kind,
    ...(p.kind === 'pods' && p.namespace ? { namespace: p.namespace } : {}),
    ...(p.name ? { name: p.name } : {}),
  };
}

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** metav1.Duration's text (Go's time.Duration.String) for whole and fractional seconds. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}
const usage = (u: Usage) => ({ cpu: cpuQuantity(u.nanoCores), memory: memoryQuantity(u.memoryBytes) });

function nodeMetrics(d: MetricsApiDeps, node: Node): Record<string, unknown> | undefined {
  const name = node.metadata.name ?? '';
  const u = d.storage.node(name);
  if (!u) return undefined;
  return {
    kind: NODE_METRICS.kind,
    apiVersion: API_VERSION,
    metadata: { name, creationTimestamp: rfc3339(d.now()), ...(node.metadata.labels ? { labels: node.metadata.labels } : {}) },
    timestamp: rfc3339(u.timestamp),
    window: goDuration(u.windowMs),
    usage: usage(u),
  };
}

function podMetrics(d: MetricsApiDeps, pod: Pod): Record<string, unknown> | undefined {
  if (pod.status?.phase !== 'Running') return undefined;
  const m = pod.metadata;
  const got = d.storage.pod(m.namespace ?? '', m.name ?? '');
  if (!got) return undefined;
  return {
    kind: POD_METRICS.kind,
    apiVersion: API_VERSION,
    metadata: { name: m.name ?? '', namespace: m.namespace ?? '', creationTimestamp: rfc3339(d.now()), ...(m.labels ? { labels: m.labels } : {}) },
    timestamp: rfc3339(got.time.timestamp),
    window: goDuration(got.time.windowMs),
    containers: got.containers.map((c) => ({ name: c.name, usage: usage(c.usage) })),
  };
}

const byName = (a: { metadata: { name?: string; namespace?: string } }, b: { metadata: { name?: string; namespace?: string } }) =>
  (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

/** Answers a metrics request: the object or list, or throws a StatusError. */
export function serveMetrics(d: MetricsApiDeps, method: string, p: MetricsPath, query: URLSearchParams): Record<string, unknown> {
  if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
  const labels = p.name === undefined ? parseLabelSelector(query.get('labelSelector')) : () => true;
  const fields = p.name === undefined ? parseFieldSelector(query.get('fieldSelector')) : () => true;
  if (p.kind === 'nodes') {
    if (p.name !== undefined) {
      const node = d.nodes().find((n) => n.metadata.name === p.name);
      if (!node) throw errors.notFound('node', p.name);
      return nodeMetrics(d, node) ?? notFound(NODE_METRICS.notFoundResource, p.name);
    }
    const items = [...d.nodes()]
      .filter((n) => labels(n.metadata.labels) && fields({ name: n.metadata.name ?? '' }))
      .sort(byName)
      .flatMap((n) => nodeMetrics(d, n) ?? []);
    return { kind: `${NODE_METRICS.kind}List`, apiVersion: API_VERSION, metadata: {}, items };
  }
  const inNs = (pod: Pod) => p.namespace === undefined || pod.metadata.namespace === p.namespace;
  if (p.name !== undefined) {
    const pod = d.pods().find((x) => inNs(x) && x.metadata.name === p.name);
    if (!pod) throw errors.notFound('pod', p.name);
    return podMetrics(d, pod) ?? notFound(POD_METRICS.notFoundResource, `${p.namespace ?? ''}/${p.name}`);
  }
  const items = d
    .pods()
    .filter((x) => inNs(x) && labels(x.metadata.labels) && fields({ name: x.metadata.name ?? '', namespace: x.metadata.namespace ?? '' }))
    .sort(byName)
    .flatMap((x) => podMetrics(d, x) ?? []);
  return { kind: `${POD_METRICS.kind}List`, apiVersion: API_VERSION, metadata: {}, items };
}

function notFound(resource: string, name: string): never {
  throw errors.notFound(`${resource}.${METRICS_GROUP}`, name);
}

function send(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
  res.end(JSON.stringify(body));
}

/** The HTTP routes: true when the path was metrics-server's API. */
export function metricsRoutes(d: MetricsApiDeps) {
  return (req: http.IncomingMessage, res: http.ServerResponse, pathname: string): boolean => {
    const path = pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname;
    if (path === '/apis') {
      send(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [apiGroup()] });
      return true;
    }
    if (path === `/apis/${METRICS_GROUP}`) {
      send(res, 200, apiGroup());
      return true;
    }
    if (path === PREFIX) {
      send(res, 200, apiResourceList());
      return true;
    }
    const p = metricsPath(path);
    if (!p) return false;
    try {
      send(res, 200, serveMetrics(d, (req.method ?? 'GET').toUpperCase(), p, new URL(req.url ?? '/', 'http://x').searchParams));
    } catch (e) {
      const err = e instanceof StatusError ? e : new StatusError('InternalError', `Internal error occurred: ${(e as Error).message}`);
      const status = toStatus(err);
      send(res, status.code, status);
    }
    return true;
  };
}
