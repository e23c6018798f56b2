// The kubelet API's resource endpoints: GET /stats/summary (statsapi.Summary JSON) and GET /metrics/resource
// (the stable resource metrics metrics-server scrapes, Prometheus text with the sample timestamps the kubelet
// gives them). A process emulating several nodes answers for the node whose IP the request came to, else its
// first node (the lab runs one node per kubelet process, each on its own loopback address).
import type http from 'node:http';
import type { HealthRoutes } from '@kemu/base';
import { statsSummary, type NodeStats, type NodeStatsCollector } from '../usage/node-stats.ts';

export interface ResourceMetricsDeps {
  /** The nodes of this process: their IP and collector. */
  nodes(): readonly { ip: string; stats: NodeStatsCollector }[];
  now(): number;
}

/** Go's strconv.FormatFloat(v, 'g', -1, 64), as Prometheus' expfmt writes sample values. */
export function goFloat(v: number): string {
  if (v === 0) return '0';
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf';
  const [mant, e] = v.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(v);
}

const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** The kubelet's resource metrics collector output (pkg/kubelet/metrics/collectors/resource_metrics.go). */
export function resourceMetricsText(s: NodeStats): string {
  const ts = ` ${s.time}`;
  const out: string[] = [];
  const family = (name: string, help: string, type: 'counter' | 'gauge', samples: [string, number][]) => {
    out.push(`# HELP ${name} [STABLE] ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) out.push(`${name}${labels} ${goFloat(value)}${ts}`);
  };
  const containers = s.pods.flatMap((p) => p.containers.map((c) => ({ p, c, labels: `{container="${esc(c.name)}",namespace="${esc(p.namespace)}",pod="${esc(p.name)}"}` })));
  const pods = s.pods.map((p) => ({ p, labels: `{namespace="${esc(p.namespace)}",pod="${esc(p.name)}"}` }));
  family('container_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the container in core-seconds', 'counter', containers.map((x) => [x.labels, x.c.usageCoreNanoSeconds / 1e9]));
  family('container_memory_working_set_bytes', 'Current working set of the container in bytes', 'gauge', containers.map((x) => [x.labels, x.c.workingSetBytes]));
  family('container_start_time_seconds', 'Start time of the container since unix epoch in seconds', 'gauge', containers.map((x) => [x.labels, x.c.startedAt / 1000]));
  family('node_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the node in core-seconds', 'counter', [['', s.usageCoreNanoSeconds / 1e9]]);
  family('node_memory_working_set_bytes', 'Current working set of the node in bytes', 'gauge', [['', s.workingSetBytes]]);
  family('pod_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the pod in core-seconds', 'counter', pods.map((x) => [x.labels, x.p.usageCoreNanoSeconds / 1e9]));
  family('pod_memory_working_set_bytes', 'Current working set of the pod in bytes', 'gauge', pods.map((x) => [x.labels, x.p.workingSetBytes]));
  // The scrape error gauge has no timestamp.
  out.push('# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise', '# TYPE resource_scrape_error gauge', 'resource_scrape_error 0');
  return out.join('\n') + '\n';
}

function localIP(req: http.IncomingMessage): string {
  const a = req.socket.localAddress ?? '';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

export function resourceMetricsRoutes(deps: ResourceMetricsDeps): HealthRoutes {
  return (req, res, path) => {
    const summary = path === '/stats/summary' || path === '/stats/summary/';
    if (!summary && path !== '/metrics/resource') return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('405: Method Not Allowed');
      return true;
    }
    const nodes = deps.nodes();
    const ip = localIP(req);
    const node = nodes.find((n) => n.ip === ip) ?? nodes[0];
    if (!node) return false;
    const stats = node.stats.collect(deps.now());
    if (summary) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(statsSummary(stats)));
    } else {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(resourceMetricsText(stats));
    }
    return true;
  };
}
