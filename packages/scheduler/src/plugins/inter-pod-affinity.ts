// InterPodAffinity. Filter: the pod's required affinity must be met by pods already in the node's domain
// (or by itself, for the first pod of a group), its required anti-affinity must not match pods there, and
// no existing pod's required anti-affinity may match it. Score: preferred terms of both sides (and existing
// pods' required affinity, with hardPodAffinityWeight) summed per topology domain, normalized min..max.
import type { CycleState, StateData } from '../framework/cycle-state.ts';
import type { FilterPlugin, Handle, PreFilterExtensions, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../framework/interface.ts';
import { MAX_NODE_SCORE } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import { affinityTermMatches, type AffinityTerm, type NamespaceLabels, type PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { Names } from './names.ts';

export const ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
export const ErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules";

export interface InterPodAffinityArgs {
  hardPodAffinityWeight: number;
  ignorePreferredTermsOfExistingPods: boolean;
}

const PRE_FILTER_KEY = 'PreFilter' + Names.InterPodAffinity;
const PRE_SCORE_KEY = 'PreScore' + Names.InterPodAffinity;

/** topologyKey + "\0" + value → count. */
type Counts = Map<string, number>;
const pair = (k: string, v: string) => `${k}\u0000${v}`;

function bump(m: Counts, nodeInfo: NodeInfo, key: string, delta: number): void {
  const v = nodeInfo.labels?.[key];
  if (v === undefined) return;
  const p = pair(key, v);
  const n = (m.get(p) ?? 0) + delta;
  if (n === 0) m.delete(p);
  else m.set(p, n);
}

function matchesAll(terms: readonly AffinityTerm[], pod: PodInfo, ns: NamespaceLabels | undefined): boolean {
  if (terms.length === 0) return false;
  for (const t of terms) if (!affinityTermMatches(t, pod, ns)) return false;
  return true;
}

class FilterState implements StateData {
  constructor(
    readonly existingAnti: Counts,
    readonly affinity: Counts,
    readonly anti: Counts,
  ) {}
  clone(): StateData {
    return new FilterState(new Map(this.existingAnti), new Map(this.affinity), new Map(this.anti));
  }
}

class ScoreState implements StateData {
  constructor(readonly scores: Map<string, Map<string, number>>) {}
  clone(): StateData {
    return this;
  }
}

export class InterPodAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin {
  readonly name = Names.InterPodAffinity;

  constructor(
    private readonly handle: Pick<Handle, 'snapshot' | 'namespaceLabels'>,
    private readonly args: InterPodAffinityArgs = { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false },
  ) {}

  private updateWithPod(st: FilterState, pod: PodInfo, existing: PodInfo, nodeInfo: NodeInfo, delta: number): void {
    const ns = this.handle.namespaceLabels;
    for (const t of existing.requiredAntiAffinity) if (affinityTermMatches(t, pod, ns)) bump(st.existingAnti, nodeInfo, t.topologyKey, delta);
    if (pod.requiredAffinity.length && matchesAll(pod.requiredAffinity, existing, ns))
      for (const t of pod.requiredAffinity) bump(st.affinity, nodeInfo, t.topologyKey, delta);
    for (const t of pod.requiredAntiAffinity) if (affinityTermMatches(t, existing, ns)) bump(st.anti, nodeInfo, t.topologyKey, delta);
  }

  preFilter(state: CycleState, pod: PodInfo): MaybeStatus {
    const snap = this.handle.snapshot();
    const ns = this.handle.namespaceLabels;
    const st = new FilterState(new Map(), new Map(), new Map());
    for (const n of snap.havePodsWithRequiredAntiAffinity()) {
      if (!n.node) continue;
      for (const e of n.podsWithRequiredAntiAffinity)
        for (const t of e.requiredAntiAffinity) if (affinityTermMatches(t, pod, ns)) bump(st.existingAnti, n, t.topologyKey, 1);
    }
    const hasOwn = pod.requiredAffinity.length > 0 || pod.requiredAntiAffinity.length > 0;
    if (!hasOwn && st.existingAnti.size === 0) return Status.skip();
    if (hasOwn)
      for (const n of snap.nodeInfos()) {
        if (!n.node) continue;
        for (const e of n.pods) {
          if (pod.requiredAffinity.length && matchesAll(pod.requiredAffinity, e, ns))
            for (const t of pod.requiredAffinity) bump(st.affinity, n, t.topologyKey, 1);
          for (const t of pod.requiredAntiAffinity) if (affinityTermMatches(t, e, ns)) bump(st.anti, n, t.topologyKey, 1);
        }
      }
    state.write(PRE_FILTER_KEY, st);
    return null;
  }

  preFilterExtensions(): PreFilterExtensions {
    return {
      addPod: (s, pod, other, nodeInfo) => {
        const st = s.read<FilterState>(PRE_FILTER_KEY);
        if (st) this.updateWithPod(st, pod, other, nodeInfo, 1);
        return null;
      },
      removePod: (s, pod, other, nodeInfo) => {
        const st = s.read<FilterState>(PRE_FILTER_KEY);
        if (st) this.updateWithPod(st, pod, other, nodeInfo, -1);
        return null;
      },
    };
  }

  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const st = state.read<FilterState>(PRE_FILTER_KEY);
    if (!st) return null;
    const labels = nodeInfo.labels ?? {};
    // Required affinity: every term's domain on this node must already hold matching pods.
    if (pod.requiredAffinity.length) {
      let podsExist = true;
      for (const t of pod.requiredAffinity) {
        const v = labels[t.topologyKey];
        if (v === undefined) return Status.unresolvable(ErrReasonAffinityRulesNotMatch);
        if ((st.affinity.get(pair(t.topologyKey, v)) ?? 0) <= 0) podsExist = false;
      }
      // The first pod of a group that matches its own terms may go anywhere the keys exist.
      if (!podsExist && !(st.affinity.size === 0 && matchesAll(pod.requiredAffinity, pod, this.handle.namespaceLabels)))
        return Status.unresolvable(ErrReasonAffinityRulesNotMatch);
    }
    if (st.anti.size > 0)
      for (const t of pod.requiredAntiAffinity) {
        const v = labels[t.topologyKey];
        if (v !== undefined && (st.anti.get(pair(t.topologyKey, v)) ?? 0) > 0) return Status.unschedulable(ErrReasonAntiAffinityRulesNotMatch);
      }
    if (st.existingAnti.size > 0)
      for (const [p, n] of st.existingAnti) {
        if (n <= 0) continue;
        const i = p.indexOf('\u0000');
        if (labels[p.slice(0, i)] === p.slice(i + 1)) return Status.unschedulable(ErrReasonExistingAntiAffinityRulesNotMatch);
      }
    return null;
  }

  preScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): MaybeStatus {
    if (nodes.length === 0) return null;
    const snap = this.handle.snapshot();
    const ns = this.handle.namespaceLabels;
    const hasPreferred = pod.preferredAffinity.length > 0 || pod.preferredAntiAffinity.length > 0;
    const withAffinity = snap.havePodsWithAffinity();
    if (!hasPreferred && withAffinity.length === 0) return Status.skip();
    const scores = new Map<string, Map<string, number>>();
    const add = (nodeInfo: NodeInfo, key: string, w: number) => {
      const v = nodeInfo.labels?.[key];
      if (v === undefined || key === '') return;
      let m = scores.get(key);
      if (!m) scores.set(key, (m = new Map()));
      m.set(v, (m.get(v) ?? 0) + w);
    };
    const hard = this.args.hardPodAffinityWeight;
    const ignoreExistingPreferred = this.args.ignorePreferredTermsOfExistingPods;
    for (const n of hasPreferred ? snap.nodeInfos() : withAffinity) {
      if (!n.node) continue;
      for (const e of hasPreferred ? n.pods : n.podsWithAffinity) {
        for (const t of pod.preferredAffinity) if (affinityTermMatches(t, e, ns)) add(n, t.topologyKey, t.weight);
        for (const t of pod.preferredAntiAffinity) if (affinityTermMatches(t, e, ns)) add(n, t.topologyKey, -t.weight);
        if (hard > 0) for (const t of e.requiredAffinity) if (affinityTermMatches(t, pod, ns)) add(n, t.topologyKey, hard);
        if (!ignoreExistingPreferred) {
          for (const t of e.preferredAffinity) if (affinityTermMatches(t, pod, ns)) add(n, t.topologyKey, t.weight);
          for (const t of e.preferredAntiAffinity) if (affinityTermMatches(t, pod, ns)) add(n, t.topologyKey, -t.weight);
        }
      }
    }
    state.write(PRE_SCORE_KEY, new ScoreState(scores));
    return null;
  }

  score(state: CycleState, _pod: PodInfo, nodeInfo: NodeInfo): number {
    const st = state.read<ScoreState>(PRE_SCORE_KEY);
    if (!st || st.scores.size === 0) return 0;
    let s = 0;
    for (const [key, m] of st.scores) {
      const v = nodeInfo.labels?.[key];
      if (v !== undefined) s += m.get(v) ?? 0;
    }
    return s;
  }

  normalizeScore(state: CycleState, _p: PodInfo, _n: readonly NodeInfo[], scores: number[]): MaybeStatus {
    const st = state.read<ScoreState>(PRE_SCORE_KEY);
    if (!st || st.scores.size === 0) return null;
    let min = Infinity;
    let max = -Infinity;
    for (const s of scores) {
      if (s < min) min = s;
      if (s > max) max = s;
    }
    const diff = max - min;
    for (let i = 0; i < scores.length; i++) scores[i] = diff > 0 ? Math.trunc((MAX_NODE_SCORE * ((scores[i] as number) - min)) / diff) : 0;
    return null;
  }
}
