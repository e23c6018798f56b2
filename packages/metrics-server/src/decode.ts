// The kubelet's /metrics/resource (Prometheus text) read as metrics-server's resource decoder reads it: the node's
// cumulative CPU seconds and working set, and per container the same plus its start time, each with the sample's
// timestamp (the scrape's start when a sample has none). Containers lacking CPU or memory are left out; lines of
// other families, comments and malformed lines are skipped, never thrown.

export interface MetricsPoint {
  /** ms since the epoch. */
  timestamp: number;
  /** ms since the epoch; 0 when unknown. */
  startTime: number;
  cumulativeCpuSeconds: number;
  memoryBytes: number;
}

export interface MetricsBatch {
  node?: MetricsPoint;
  /** "namespace/name" → container name → point. */
  pods: Map<string, Map<string, MetricsPoint>>;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?\s*$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function labels(s: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!s) return out;
  for (const m of s.matchAll(LABEL)) out[m[1] ?? ''] = (m[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  return out;
}

function value(s: string): number | undefined {
  const v = s === '+Inf' ? Infinity : s === '-Inf' ? -Infinity : Number(s);
  return Number.isFinite(v) ? v : undefined;
}

interface Partial {
  timestamp?: number;
  startTime?: number;
  cpu?: number;
  memory?: number;
}

function complete(p: Partial, defaultTs: number): MetricsPoint | undefined {
  if (p.cpu === undefined || p.memory === undefined) return undefined;
  return { timestamp: p.timestamp ?? defaultTs, startTime: p.startTime ?? 0, cumulativeCpuSeconds: p.cpu, memoryBytes: p.memory };
}

export function decodeResourceMetrics(text: string, scrapeStart: number): MetricsBatch {
  const node: Partial = {};
  const containers = new Map<string, Map<string, Partial>>();
  const container = (l: Record<string, string>): Partial | undefined => {
    if (!l.namespace || !l.pod || !l.container) return undefined;
    const key = `${l.namespace}/${l.pod}`;
    let pod = containers.get(key);
    if (!pod) containers.set(key, (pod = new Map()));
    let c = pod.get(l.container);
    if (!c) pod.set(l.container, (c = {}));
    return c;
  };
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const v = value(m[3] ?? '');
    if (v === undefined) continue;
    const ts = m[4] !== undefined ? Number(m[4]) : undefined;
    switch (m[1]) {
      case 'node_cpu_usage_seconds_total':
        node.cpu = v;
        if (ts !== undefined) node.timestamp = ts;
        break;
      case 'node_memory_working_set_bytes':
        node.memory = v;
        break;
      case 'container_cpu_usage_seconds_total': {
        const c = container(labels(m[2]));
        if (!c) break;
        c.cpu = v;
        if (ts !== undefined) c.timestamp = ts;
        break;
      }
      case 'container_memory_working_set_bytes': {
        const c = container(labels(m[2]));
        if (c) c.memory = v;
        break;
      }
      case 'container_start_time_seconds': {
        const c = container(labels(m[2]));
        if (c) c.startTime = Math.round(v * 1000);
        break;
      }
    }
  }
  const pods = new Map<string, Map<string, MetricsPoint>>();
  for (const [key, cs] of containers) {
    const done = new Map<string, MetricsPoint>();
    for (const [name, p] of cs) {
      const point = complete(p, scrapeStart);
      if (point) done.set(name, point);
    }
    if (done.size > 0) pods.set(key, done);
  }
  const n = complete(node, scrapeStart);
  return { ...(n ? { node: n } : {}), pods };
}
