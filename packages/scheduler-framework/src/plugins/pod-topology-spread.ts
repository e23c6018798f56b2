// PodTopologySpread. Filter (DoNotSchedule): placing the pod must keep matchNum + self - globalMin <= maxSkew
// in the node's domain, with minDomains and the nodeAffinityPolicy/nodeTaintsPolicy inclusion rules.
// Score (ScheduleAnyway, or the default constraints for pods without any): fewer matching pods in the
// node's domains is better, weighted by log(number of domains + 2).
import type { LabelSelector, Pod, TopologySpreadConstraint } from '@kemu/api';
import type { CycleState, StateData } from '../framework/cycle-state.ts';
import type { FilterPlugin, Handle, PreFilterExtensions, PreFilterPlugin, PreScorePlugin, ScorePlugin, Snapshot } from '../framework/interface.ts';
import { MAX_NODE_SCORE } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { compileLabelSelector, type LabelMatcher, type NodeMatcher, type Labels } from '../util/selector.ts';
import { findUntoleratedTaint, isNoScheduleOrNoExecute } from '../util/taints.ts';
import { Names } from './names.ts';
import { requiredNodeAffinity } from './node-affinity.ts';

export const ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints";
export const ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + ' (missing required label)';
export const LabelHostname = 'kubernetes.io/hostname';
export const LabelZone = 'topology.kubernetes.io/zone';

export interface PodTopologySpreadArgs {
  defaultConstraints: TopologySpreadConstraint[];
  defaultingType: 'System' | 'List';
}

export const systemDefaultConstraints = (): TopologySpreadConstraint[] => [
  { maxSkew: 3, topologyKey: LabelHostname, whenUnsatisfiable: 'ScheduleAnyway' },
  { maxSkew: 5, topologyKey: LabelZone, whenUnsatisfiable: 'ScheduleAnyway' },
];

interface Constraint {
  maxSkew: number;
  topologyKey: string;
  selector: LabelMatcher;
  minDomains: number;
  honorAffinity: boolean;
  honorTaints: boolean;
}

const PRE_FILTER_KEY = 'PreFilter' + Names.PodTopologySpread;
const PRE_SCORE_KEY = 'PreScore' + Names.PodTopologySpread;

function compileConstraint(pod: Pod, c: TopologySpreadConstraint, selector?: LabelSelector): Constraint {
  let sel: LabelSelector | undefined = selector ?? c.labelSelector;
  if (c.matchLabelKeys?.length && sel) {
    const labels = pod.metadata.labels ?? {};
    const extra = c.matchLabelKeys.filter((k) => k in labels).map((k) => ({ key: k, operator: 'In' as const, values: [labels[k] ?? ''] }));
    sel = { ...sel, matchExpressions: [...(sel.matchExpressions ?? []), ...extra] };
  }
  return {
    maxSkew: c.maxSkew,
    topologyKey: c.topologyKey,
    selector: compileLabelSelector(sel),
    minDomains: c.minDomains ?? 1,
    honorAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
    honorTaints: (c.nodeTaintsPolicy ?? 'Ignore') === 'Honor',
  };
}

function hasAllKeys(labels: Labels, cs: readonly Constraint[]): boolean {
  if (!labels) return cs.length === 0;
  for (const c of cs) if (!(c.topologyKey in labels)) return false;
  return true;
}

/** nodeAffinityPolicy / nodeTaintsPolicy: does this node count towards the constraint's domains? */
function includesNode(c: Constraint, pod: PodInfo, nodeInfo: NodeInfo, affinity: NodeMatcher | undefined): boolean {
  if (c.honorAffinity && affinity && !affinity(nodeInfo)) return false;
  if (c.honorTaints && findUntoleratedTaint(nodeInfo.node?.spec?.taints, pod.pod.spec.tolerations, isNoScheduleOrNoExecute)) return false;
  return true;
}

function countMatching(pods: readonly PodInfo[], sel: LabelMatcher, namespace: string): number {
  let n = 0;
  for (let i = 0; i < pods.length; i++) {
    const p = pods[i] as PodInfo;
    if (p.namespace !== namespace || p.pod.metadata.deletionTimestamp) continue;
    if (sel(p.labels)) n++;
  }
  return n;
}

class FilterState implements StateData {
  constructor(
    readonly constraints: Constraint[],
    /** Per constraint: domain value → matching pods. */
    readonly counts: Map<string, number>[],
    readonly mins: number[],
    /** 1 where the incoming pod matches the constraint's own selector (computed once per cycle). */
    readonly self: number[],
  ) {}
  recomputeMin(i: number): void {
    let m = Number.MAX_SAFE_INTEGER;
    for (const v of (this.counts[i] as Map<string, number>).values()) if (v < m) m = v;
    this.mins[i] = m;
  }
  clone(): StateData {
    return new FilterState(this.constraints, this.counts.map((m) => new Map(m)), [...this.mins], this.self);
  }
}

class ScoreState implements StateData {
  constructor(
    readonly constraints: Constraint[],
    readonly ignored: Set<string>,
    readonly counts: Map<string, number>[],
    readonly weights: number[],
  ) {}
  clone(): StateData {
    return this;
  }
}

export class PodTopologySpread implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin {
  readonly name = Names.PodTopologySpread;
  private readonly defaults: TopologySpreadConstraint[];
  private readonly systemDefaulted: boolean;
  /** Per set of constraint keys: the nodes having all of them, valid for one node generation. */
  private labelled: { gen: number; keys: string; nodes: NodeInfo[]; values: Map<string, string[]> } | undefined;

  constructor(
    private readonly handle: Pick<Handle, 'snapshot' | 'selectorLister'>,
    args: PodTopologySpreadArgs = { defaultConstraints: [], defaultingType: 'System' },
  ) {
    this.systemDefaulted = args.defaultingType === 'System';
    this.defaults = this.systemDefaulted ? systemDefaultConstraints() : args.defaultConstraints;
  }

  private constraints(pod: PodInfo, action: 'DoNotSchedule' | 'ScheduleAnyway'): Constraint[] {
    const own = pod.pod.spec.topologySpreadConstraints ?? [];
    if (own.length > 0) return own.filter((c) => c.whenUnsatisfiable === action).map((c) => compileConstraint(pod.pod, c));
    const defs = this.defaults.filter((c) => c.whenUnsatisfiable === action);
    if (defs.length === 0) return [];
    // Default constraints select the pods of the workloads (services, replicasets, …) selecting this pod.
    const sels = this.handle.selectorLister?.selectorsFor(pod.pod) ?? [];
    const merged: LabelSelector = { matchLabels: {}, matchExpressions: [] };
    for (const s of sels) {
      Object.assign(merged.matchLabels as Record<string, string>, s.matchLabels ?? {});
      (merged.matchExpressions ?? []).push(...(s.matchExpressions ?? []));
    }
    if (Object.keys(merged.matchLabels ?? {}).length === 0 && (merged.matchExpressions ?? []).length === 0) return [];
    return defs.map((c) => compileConstraint(pod.pod, c, merged));
  }

  preFilter(state: CycleState, pod: PodInfo): MaybeStatus {
    const cs = this.constraints(pod, 'DoNotSchedule');
    if (cs.length === 0) return Status.skip();
    const snap = this.handle.snapshot();
    const affinity = requiredNodeAffinity(pod.pod);
    const counts = cs.map(() => new Map<string, number>());
    // Eligible nodes define the domains (count 0 to start); pods are then counted from the label index
    // when the selector has an equality requirement, else node by node.
    const eligible = cs.map(() => new Set<string>());
    // Constraints that include every labelled node need no per-node eligibility set.
    const everyNode = cs.map((c) => !c.honorTaints && (!c.honorAffinity || affinity === undefined));
    const labelled = this.labelledNodes(snap, cs);
    // Fast path: indexed selectors on constraints that include every labelled node only need the domains.
    const perNode = cs.map((c, i) => !everyNode[i] || !c.selector.indexKey);
    for (let i = 0; i < cs.length; i++) {
      if (perNode[i]) continue;
      const m = counts[i] as Map<string, number>;
      for (const v of this.domainValues(labelled, (cs[i] as Constraint).topologyKey)) m.set(v, 0);
    }
    for (const n of perNode.some((x) => x) ? labelled : []) {
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i] as Constraint;
        if (!perNode[i]) continue;
        if (!everyNode[i] && !includesNode(c, pod, n, affinity)) continue;
        const v = (n.labels as Record<string, string>)[c.topologyKey] as string;
        const m = counts[i] as Map<string, number>;
        const ik = c.selector.indexKey;
        if (!ik) m.set(v, (m.get(v) ?? 0) + countMatching(n.pods, c.selector, pod.namespace));
        else {
          if (!m.has(v)) m.set(v, 0);
          if (!everyNode[i]) (eligible[i] as Set<string>).add(n.name);
        }
      }
    }
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i] as Constraint;
      const ik = c.selector.indexKey;
      if (!ik) continue;
      const m = counts[i] as Map<string, number>;
      const el = eligible[i] as Set<string>;
      for (const p of snap.podsWithLabel(pod.namespace, ik[0], ik[1])) {
        const nodeName = p.pod.spec.nodeName;
        if (!nodeName || p.pod.metadata.deletionTimestamp || !c.selector(p.labels)) continue;
        if (!everyNode[i] && !el.has(nodeName)) continue;
        const ni = snap.get(nodeName);
        if (!ni || !hasAllKeys(ni.labels, cs)) continue;
        const v = ni.labels?.[c.topologyKey];
        if (v !== undefined) m.set(v, (m.get(v) ?? 0) + 1);
      }
    }
    const st = new FilterState(cs, counts, cs.map(() => 0), cs.map((c) => (c.selector(pod.labels) ? 1 : 0)));
    for (let i = 0; i < cs.length; i++) st.recomputeMin(i);
    state.write(PRE_FILTER_KEY, st);
    return null;
  }

  private labelledNodes(snap: Snapshot, cs: readonly Constraint[]): NodeInfo[] {
    const keys = cs.map((c) => c.topologyKey).join('\u0000');
    const gen = snap.nodeGeneration();
    if (this.labelled && this.labelled.gen === gen && this.labelled.keys === keys) return this.labelled.nodes;
    const nodes = snap.nodeInfos().filter((n) => n.node && hasAllKeys(n.labels, cs));
    this.labelled = { gen, keys, nodes, values: new Map() };
    return nodes;
  }

  /** Distinct values of a topology key over the labelled nodes (memoised with them). */
  private domainValues(nodes: NodeInfo[], key: string): string[] {
    const cache = this.labelled?.nodes === nodes ? this.labelled.values : undefined;
    const hit = cache?.get(key);
    if (hit) return hit;
    const vals = [...new Set(nodes.map((n) => (n.labels as Record<string, string>)[key] as string))];
    cache?.set(key, vals);
    return vals;
  }

  preFilterExtensions(): PreFilterExtensions {
    const update = (state: CycleState, pod: PodInfo, other: PodInfo, nodeInfo: NodeInfo, delta: number): MaybeStatus => {
      const st = state.read<FilterState>(PRE_FILTER_KEY);
      if (!st || other.namespace !== pod.namespace || !nodeInfo.node || !hasAllKeys(nodeInfo.labels, st.constraints)) return null;
      const affinity = requiredNodeAffinity(pod.pod);
      st.constraints.forEach((c, i) => {
        if (!includesNode(c, pod, nodeInfo, affinity) || !c.selector(other.labels)) return;
        const v = (nodeInfo.labels as Record<string, string>)[c.topologyKey] as string;
        const m = st.counts[i] as Map<string, number>;
        m.set(v, (m.get(v) ?? 0) + delta);
        st.recomputeMin(i);
      });
      return null;
    };
    return {
      addPod: (s, p, o, n) => update(s, p, o, n, 1),
      removePod: (s, p, o, n) => update(s, p, o, n, -1),
    };
  }

  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const st = state.read<FilterState>(PRE_FILTER_KEY);
    if (!st) return null;
    const labels = nodeInfo.labels;
    for (let i = 0; i < st.constraints.length; i++) {
      const c = st.constraints[i] as Constraint;
      const v = labels?.[c.topologyKey];
      if (v === undefined) return Status.unresolvable(ErrReasonNodeLabelNotMatch);
      const self = st.self[i] as number;
      const m = st.counts[i] as Map<string, number>;
      const min = m.size < c.minDomains ? 0 : (st.mins[i] as number);
      const skew = (m.get(v) ?? 0) + self - min;
      if (skew > c.maxSkew) return Status.unschedulable(ErrReasonConstraintsNotMatch);
    }
    return null;
  }

  preScore(state: CycleState, pod: PodInfo, filtered: readonly NodeInfo[]): MaybeStatus {
    const all = this.handle.snapshot().nodeInfos();
    if (filtered.length === 0 || all.length === 0) return null;
    const cs = this.constraints(pod, 'ScheduleAnyway');
    if (cs.length === 0) return Status.skip();
    const requireAll = (pod.pod.spec.topologySpreadConstraints ?? []).length > 0 || !this.systemDefaulted;
    const ignored = new Set<string>();
    const counts = cs.map(() => new Map<string, number>());
    for (const n of filtered) {
      if (requireAll && !hasAllKeys(n.labels, cs)) {
        ignored.add(n.name);
        continue;
      }
      cs.forEach((c, i) => {
        if (c.topologyKey === LabelHostname) return;
        const v = n.labels?.[c.topologyKey];
        if (v !== undefined && !(counts[i] as Map<string, number>).has(v)) (counts[i] as Map<string, number>).set(v, 0);
      });
    }
    const weights = cs.map((c, i) =>
      Math.log((c.topologyKey === LabelHostname ? filtered.length - ignored.size : (counts[i] as Map<string, number>).size) + 2),
    );
    const affinity = requiredNodeAffinity(pod.pod);
    const snap = this.handle.snapshot();
    const eligible = (n: NodeInfo, c: Constraint) => !!n.node && (!requireAll || hasAllKeys(n.labels, cs)) && includesNode(c, pod, n, affinity);
    cs.forEach((c, i) => {
      if (c.topologyKey === LabelHostname) return;
      const m = counts[i] as Map<string, number>;
      const ik = c.selector.indexKey;
      if (ik) {
        // Count matching pods from the label index instead of walking every node's pods.
        const ok = new Map<string, boolean>();
        for (const p of snap.podsWithLabel(pod.namespace, ik[0], ik[1])) {
          const nodeName = p.pod.spec.nodeName;
          if (!nodeName || p.pod.metadata.deletionTimestamp || !c.selector(p.labels)) continue;
          const n = snap.get(nodeName);
          const v = n?.labels?.[c.topologyKey];
          if (!n || v === undefined || !m.has(v)) continue;
          let e = ok.get(nodeName);
          if (e === undefined) ok.set(nodeName, (e = eligible(n, c)));
          if (e) m.set(v, (m.get(v) as number) + 1);
        }
        return;
      }
      for (const n of all) {
        const v = n.labels?.[c.topologyKey];
        if (v === undefined || !m.has(v) || !eligible(n, c)) continue;
        m.set(v, (m.get(v) as number) + countMatching(n.pods, c.selector, pod.namespace));
      }
    });
    state.write(PRE_SCORE_KEY, new ScoreState(cs, ignored, counts, weights));
    return null;
  }

  score(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number {
    const st = state.read<ScoreState>(PRE_SCORE_KEY);
    if (!st || st.ignored.has(nodeInfo.name)) return 0;
    let score = 0;
    for (let i = 0; i < st.constraints.length; i++) {
      const c = st.constraints[i] as Constraint;
      const v = nodeInfo.labels?.[c.topologyKey];
      if (v === undefined) continue;
      const cnt =
        c.topologyKey === LabelHostname ? countMatching(nodeInfo.pods, c.selector, pod.namespace) : ((st.counts[i] as Map<string, number>).get(v) ?? 0);
      score += cnt * (st.weights[i] as number) + (c.maxSkew - 1);
    }
    return Math.round(score);
  }

  normalizeScore(state: CycleState, _p: PodInfo, nodes: readonly NodeInfo[], scores: number[]): MaybeStatus {
    const st = state.read<ScoreState>(PRE_SCORE_KEY);
    if (!st) return null;
    let min = Number.MAX_SAFE_INTEGER;
    let max = 0;
    nodes.forEach((n, i) => {
      if (st.ignored.has(n.name)) return;
      const s = scores[i] as number;
      if (s < min) min = s;
      if (s > max) max = s;
    });
    nodes.forEach((n, i) => {
      if (st.ignored.has(n.name)) scores[i] = 0;
      else if (max === 0) scores[i] = MAX_NODE_SCORE;
      else scores[i] = Math.trunc((MAX_NODE_SCORE * (max + min - (scores[i] as number))) / max);
    });
    return null;
  }
}
