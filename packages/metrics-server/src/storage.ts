// The last two points of every node and container, as metrics-server's storage keeps them, and usage computed from
// them: CPU is the cumulative counter's increase over the time between the points (truncated to whole nanocores),
// memory the last working set, `timestamp` the last point's time and `window` the time between the two. A node or
// pod has metrics only once it has two points (a container that started between 10 s and one resolution before its
// first point counts its start, at zero CPU, as the first); a pod has metrics only when every container has.
// A point older than the one kept is ignored; a counter that went backwards (a restart) starts over.
import type { MetricsBatch, MetricsPoint } from './decode.ts';

const FRESH_CONTAINER_MIN_MS = 10_000;

export interface Usage {
  nanoCores: number;
  memoryBytes: number;
}

export interface TimeInfo {
  timestamp: number;
  windowMs: number;
}

export function resourceUsage(last: MetricsPoint, prev: MetricsPoint): (Usage & TimeInfo) | undefined {
  const windowMs = last.timestamp - prev.timestamp;
  if (windowMs <= 0 || last.cumulativeCpuSeconds < prev.cumulativeCpuSeconds) return undefined;
  const nanoCores = Math.trunc(((last.cumulativeCpuSeconds - prev.cumulativeCpuSeconds) * 1e9) / (windowMs / 1000));
  return { nanoCores, memoryBytes: last.memoryBytes, timestamp: last.timestamp, windowMs };
}

interface Pair {
  last: MetricsPoint;
  prev?: MetricsPoint;
}

/** The pair after a new point: the new one last, and the one before it kept when it is older and not from before a restart. */
function advance(old: Pair | undefined, p: MetricsPoint): Pair {
  if (!old) return { last: p };
  if (p.startTime > old.last.timestamp) return { last: p }; // restarted since
  if (p.timestamp > old.last.timestamp) return { last: p, prev: old.last };
  if (old.prev && old.prev.timestamp < p.timestamp) return { last: p, prev: old.prev };
  return { last: p };
}

export class MetricsStorage {
  private nodes = new Map<string, Pair>();
  private pods = new Map<string, Map<string, Pair>>();

  constructor(private readonly resolutionMs: number) {}

  /** One scrape of every node: nodes and pods not in it are forgotten. */
  store(batches: ReadonlyMap<string, MetricsBatch>): void {
    const nodes = new Map<string, Pair>();
    const pods = new Map<string, Map<string, Pair>>();
    for (const [nodeName, b] of batches) {
      if (b.node) nodes.set(nodeName, advance(this.nodes.get(nodeName), b.node));
      for (const [key, containers] of b.pods) {
        if (pods.has(key)) continue; // a pod reported by two nodes: the first wins, as metrics-server's duplicate check
        const old = this.pods.get(key);
        const next = new Map<string, Pair>();
        for (const [name, p] of containers) {
          const age = p.timestamp - p.startTime;
          if (p.startTime > 0 && age > 0 && age < this.resolutionMs && age >= FRESH_CONTAINER_MIN_MS) next.set(name, { last: p, prev: { ...p, timestamp: p.startTime, cumulativeCpuSeconds: 0 } });
          else next.set(name, advance(old?.get(name), p));
        }
        pods.set(key, next);
      }
    }
    this.nodes = nodes;
    this.pods = pods;
  }

  node(name: string): (Usage & TimeInfo) | undefined {
    const pair = this.nodes.get(name);
    return pair?.prev ? resourceUsage(pair.last, pair.prev) : undefined;
  }

  /** Per container usage and the earliest container time, undefined unless every container has two points. */
  pod(namespace: string, name: string): { containers: { name: string; usage: Usage }[]; time: TimeInfo } | undefined {
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) return undefined;
    const containers: { name: string; usage: Usage }[] = [];
    let time: TimeInfo | undefined;
    for (const [c, pair] of pod) {
      if (!pair.prev) return undefined;
      const u = resourceUsage(pair.last, pair.prev);
      if (!u) continue;
      containers.push({ name: c, usage: { nanoCores: u.nanoCores, memoryBytes: u.memoryBytes } });
      if (!time || u.timestamp < time.timestamp) time = { timestamp: u.timestamp, windowMs: u.windowMs };
    }
    return time ? { containers, time } : undefined;
  }
}
