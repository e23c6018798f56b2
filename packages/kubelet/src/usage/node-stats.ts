// One emulated node's resource statistics at an instant (what the kubelet's stats provider reads from cAdvisor):
// its running containers' usage (usage.ts), summed per pod and per node with a small system overhead, as
// /stats/summary (statsapi.Summary's JSON) and /metrics/resource (resource-metrics.ts) serve them.
// The node's cumulative CPU keeps the CPU time of containers that have gone, so it never goes backwards; a
// container whose profile changes (its pod's annotation edited) counts on from what it had reported.
// Requests a container served (proxy/traffic.ts) add their CPU cost (request-cost.ts) averaged over the usage
// window, up to the container's CPU limit: usage = min(limit, base + cost × rate).
import type { Pod } from '@kemu/api';
import type { ContainerRunState } from '../pods/lifecycle.ts';
import type { TrafficSource } from '../proxy/traffic.ts';
import { cpuLimit, cpuPerRequest, usageWindowMs } from './request-cost.ts';
import { containerProfiles, containerUsage, cpuNanosBetween, type ContainerUsage } from './usage.ts';

/** What the node's system daemons and kernel use besides the pods (a real idle node shows about this). */
export const NODE_OVERHEAD_CPU_CORES = 0.05;
export const NODE_OVERHEAD_MEMORY_BYTES = 256 * 1024 * 1024;

export interface StatsPodSource {
  readonly current: Pod;
  /** The pod's emulated containers (a PodLifecycle). */
  readonly lifecycle: { readonly startTime: number; readonly containers: readonly { readonly name: string; readonly state: ContainerRunState }[] } | undefined;
}

/** An emulated node as the stats read it. */
/** Where the stats find the traffic the process' pods served, and the default usage window. */
export interface StatsTraffic {
  source(): TrafficSource | undefined;
  /** --cpu-usage-window, in ms. */
  windowMs: number;
}

/** cAdvisor's housekeeping interval: the default window usage is averaged over. */
export const DEFAULT_USAGE_WINDOW_MS = 10_000;

export interface StatsNodeSource {
  readonly name: string;
  readonly memoryCapacityBytes: number;
  podWorkers(): readonly StatsPodSource[];
}

export interface PodStats {
  namespace: string;
  name: string;
  uid: string;
  startTime: number;
  containers: ContainerUsage[];
  usageNanoCores: number;
  usageCoreNanoSeconds: number;
  workingSetBytes: number;
}

export interface NodeStats {
  nodeName: string;
  startTime: number;
  /** When the statistics were taken (ms since the epoch). */
  time: number;
  memoryCapacityBytes: number;
  usageNanoCores: number;
  usageCoreNanoSeconds: number;
  workingSetBytes: number;
  pods: PodStats[];
}

/** Collects a node's statistics; one per node, kept across scrapes for the node's counter. */
export class NodeStatsCollector {
  /** CPU time (ns) of containers no longer running, and the last seen cumulative of those running. */
  private retiredNanos = 0;
  private lastSeen = new Map<string, number>();
  /** Containers whose profile changed while running: the profile now, since when, and the CPU time until then. */
  private profiles = new Map<string, string>();
  private anchors = new Map<string, { profile: string; at: number; baseNanos: number }>();
  /** Per container instance: the traffic CPU reported so far, and the requests worked off when it was read. */
  private trafficSeen = new Map<string, { at: number; served: number; nanos: number }>();

  constructor(
    private readonly node: StatsNodeSource,
    private readonly startTime: number,
    private readonly traffic?: StatsTraffic,
  ) {}

  /**
   * Adds what the container's served requests cost to its usage. The rate is capped at the CPU limit; the
   * counter grows by the requests worked off since the last read, at most the limit's worth of that time.
   */
  private addTraffic(u: ContainerUsage, pod: Pod, spec: { name: string; image?: string; resources?: { limits?: Record<string, unknown> } }, id: string, now: number, next: Map<string, { at: number; served: number; nanos: number }>): void {
    const window = this.traffic?.source()?.window(pod.metadata.namespace ?? 'default', pod.metadata.name ?? '', spec.name);
    const prev = this.trafficSeen.get(id);
    if (!window || !this.traffic) {
      if (prev) {
        next.set(id, prev);
        u.usageCoreNanoSeconds += prev.nanos;
      }
      return;
    }
    const cost = cpuPerRequest(pod, spec);
    const w = usageWindowMs(pod, this.traffic.windowMs);
    const limit = cpuLimit(spec);
    const room = limit === undefined ? Infinity : Math.max(0, limit * 1e9 - u.usageNanoCores);
    u.usageNanoCores += Math.round(Math.min(room, cost * window.rate(now, w) * 1e9));
    const served = window.served(now, w);
    const since = prev ?? { at: u.startedAt, served: 0, nanos: 0 };
    const worked = Math.max(0, served - since.served) * cost * 1e9;
    const nanos = since.nanos + Math.round(Math.min(worked, room * Math.max(0, now - since.at) / 1000));
    next.set(id, { at: now, served, nanos });
    u.usageCoreNanoSeconds += nanos;
  }

  collect(now: number): NodeStats {
    const pods: PodStats[] = [];
    const seen = new Map<string, number>();
    const profiles = new Map<string, string>();
    const traffic = new Map<string, { at: number; served: number; nanos: number }>();
    for (const w of this.node.podWorkers()) {
      const lc = w.lifecycle;
      if (!lc) continue;
      const containers: ContainerUsage[] = [];
      for (const c of lc.containers) {
        if (c.state.kind !== 'running') continue;
        const spec = (w.current.spec.containers ?? []).find((s) => s.name === c.name) ?? { name: c.name };
        const u = containerUsage(w.current, spec, c.state.startedAt, now);
        const id = c.state.containerID;
        const profile = JSON.stringify(containerProfiles(w.current, spec).cpu);
        let anchor = this.anchors.get(id);
        // The profile's own CPU time last reported (the traffic's is added on top, below).
        const seenTotal = this.lastSeen.get(id);
        const last = seenTotal === undefined ? undefined : seenTotal - (this.trafficSeen.get(id)?.nanos ?? 0);
        if (anchor === undefined && last !== undefined && this.profiles.get(id) !== profile) anchor = { profile, at: now, baseNanos: last };
        else if (anchor !== undefined && anchor.profile !== profile) anchor = { profile, at: now, baseNanos: last ?? anchor.baseNanos };
        if (anchor) {
          this.anchors.set(id, anchor);
          u.usageCoreNanoSeconds = anchor.baseNanos + cpuNanosBetween(w.current, spec, c.state.startedAt, anchor.at, now);
        }
        profiles.set(id, profile);
        this.addTraffic(u, w.current, spec, id, now, traffic);
        containers.push(u);
        seen.set(id, u.usageCoreNanoSeconds);
      }
      if (containers.length === 0) continue;
      const m = w.current.metadata;
      pods.push({
        namespace: m.namespace ?? 'default',
        name: m.name ?? '',
        uid: m.uid ?? '',
        startTime: lc.startTime,
        containers,
        usageNanoCores: sum(containers, (c) => c.usageNanoCores),
        usageCoreNanoSeconds: sum(containers, (c) => c.usageCoreNanoSeconds),
        workingSetBytes: sum(containers, (c) => c.workingSetBytes),
      });
    }
    for (const [id, nanos] of this.lastSeen) if (!seen.has(id)) this.retiredNanos += nanos;
    this.lastSeen = seen;
    this.profiles = profiles;
    this.trafficSeen = traffic;
    for (const id of this.anchors.keys()) if (!seen.has(id)) this.anchors.delete(id);
    const up = Math.max(0, (now - this.startTime) / 1000);
    return {
      nodeName: this.node.name,
      startTime: this.startTime,
      time: now,
      memoryCapacityBytes: this.node.memoryCapacityBytes,
      usageNanoCores: Math.round(NODE_OVERHEAD_CPU_CORES * 1e9) + sum(pods, (p) => p.usageNanoCores),
      usageCoreNanoSeconds: Math.round(NODE_OVERHEAD_CPU_CORES * up * 1e9) + this.retiredNanos + sum(pods, (p) => p.usageCoreNanoSeconds),
      workingSetBytes: Math.min(this.node.memoryCapacityBytes || Infinity, NODE_OVERHEAD_MEMORY_BYTES + sum(pods, (p) => p.workingSetBytes)),
      pods,
    };
  }
}

function sum<T>(items: readonly T[], f: (t: T) => number): number {
  let total = 0;
  for (const i of items) total += f(i);
  return total;
}

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function cpu(time: string, nano: number, cumulative: number) {
  return { time, usageNanoCores: nano, usageCoreNanoSeconds: cumulative };
}

function memory(time: string, workingSet: number, available?: number) {
  // Emulated memory has no page cache: usage, RSS and working set are the same.
  return { time, ...(available !== undefined ? { availableBytes: Math.max(0, available) } : {}), usageBytes: workingSet, workingSetBytes: workingSet, rssBytes: workingSet, pageFaults: 0, majorPageFaults: 0 };
}

/** statsapi.Summary as the kubelet's /stats/summary serves it (the fields metrics-server and kubectl read). */
export function statsSummary(s: NodeStats): unknown {
  const time = rfc3339(s.time);
  return {
    node: {
      nodeName: s.nodeName,
      systemContainers: [
        { name: 'kubelet', startTime: rfc3339(s.startTime), cpu: cpu(time, 0, 0), memory: memory(time, 0) },
        { name: 'pods', startTime: rfc3339(s.startTime), cpu: cpu(time, s.usageNanoCores, s.usageCoreNanoSeconds), memory: memory(time, s.workingSetBytes) },
      ],
      startTime: rfc3339(s.startTime),
      cpu: cpu(time, s.usageNanoCores, s.usageCoreNanoSeconds),
      memory: memory(time, s.workingSetBytes, s.memoryCapacityBytes - s.workingSetBytes),
    },
    pods: s.pods.map((p) => ({
      podRef: { name: p.name, namespace: p.namespace, uid: p.uid },
      startTime: rfc3339(p.startTime),
      containers: p.containers.map((c) => ({
        name: c.name,
        startTime: rfc3339(c.startedAt),
        cpu: cpu(time, c.usageNanoCores, c.usageCoreNanoSeconds),
        memory: memory(time, c.workingSetBytes),
      })),
      cpu: cpu(time, p.usageNanoCores, p.usageCoreNanoSeconds),
      memory: memory(time, p.workingSetBytes),
    })),
  };
}
