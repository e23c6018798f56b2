// The kube-system/cluster-autoscaler-status ConfigMap's `status` key (clusterstate/api): YAML with the cluster-wide
// and per-group health, scale-up and scale-down states, each with its probe and transition times, as the
// autoscaler (1.30+) writes it.
import { stringify } from 'yaml';

export interface NodeCounts {
  total: number;
  ready: number;
  notStarted: number;
  unregistered: number;
}

export interface GroupStatusInput {
  name: string;
  minSize: number;
  maxSize: number;
  target: number;
  counts: NodeCounts;
  candidates: number;
}

/** Go's time.Time.String() in UTC: "2026-12-04 10:40:00.123456789 +0000 UTC". */
export function goTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-12-04T10:40:00.123Z
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000000 +0000 UTC`;
}

/** Remembers when each condition last changed. */
export class Transitions {
  private readonly seen = new Map<string, { value: string; at: number }>();
  at(key: string, value: string, now: number): number {
    const s = this.seen.get(key);
    if (s && s.value === value) return s.at;
    this.seen.set(key, { value, at: now });
    return now;
  }
}

function counts(c: NodeCounts) {
  return { registered: { total: c.total, ready: c.ready, notStarted: c.notStarted }, longUnregistered: 0, unregistered: c.unregistered };
}

export function statusText(now: number, groups: readonly GroupStatusInput[], unmanaged: NodeCounts, t: Transitions): string {
  const probe = goTime(now);
  const block = (key: string, status: string, extra: Record<string, unknown> = {}) => ({
    status,
    ...extra,
    lastProbeTime: probe,
    lastTransitionTime: goTime(t.at(key, status, now)),
  });
  const total: NodeCounts = { ...unmanaged };
  for (const g of groups) for (const k of ['total', 'ready', 'notStarted', 'unregistered'] as const) total[k] += g.counts[k];
  const upInProgress = (g: GroupStatusInput) => g.target > g.counts.ready;
  const healthy = (g: GroupStatusInput) => g.counts.ready >= g.minSize || g.target > g.counts.ready;
  const candidates = groups.reduce((n, g) => n + g.candidates, 0);
  const doc = {
    time: probe,
    autoscalerStatus: 'Running',
    clusterWide: {
      health: block('health', 'Healthy', { nodeCounts: counts(total) }),
      scaleUp: block('scaleUp', groups.some(upInProgress) ? 'InProgress' : 'NoActivity'),
      scaleDown: block('scaleDown', candidates > 0 ? 'CandidatesPresent' : 'NoCandidates', { candidates }),
    },
    nodeGroups: groups.map((g) => ({
      name: g.name,
      health: block(`${g.name}/health`, healthy(g) ? 'Healthy' : 'Unhealthy', { nodeCounts: counts(g.counts), cloudProviderTarget: g.target, minSize: g.minSize, maxSize: g.maxSize }),
      scaleUp: block(`${g.name}/scaleUp`, upInProgress(g) ? 'InProgress' : 'NoActivity'),
      scaleDown: block(`${g.name}/scaleDown`, g.candidates > 0 ? 'CandidatesPresent' : 'NoCandidates', { candidates: g.candidates }),
    })),
  };
  return stringify(doc);
}
