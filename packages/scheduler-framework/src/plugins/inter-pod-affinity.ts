// InterPodAffinity. Filter: the pod's required affinity must be met by pods already in the node's domain
// (or by itself, for the first pod of a group), its required anti-affinity must not match pods there, and
// no existing pod's required anti-affinity may match it. Score: preferred terms of both sides (and existing
// pods' required affinity, with hardPodAffinityWeight) summed per topology domain, normalized min..max.
import type { CycleState, StateData } from '../framework/cycle-state.ts';
import type { FilterPlugin, Handle, PreFilterExtensions, PreFilterPlugin, PreScorePlugin, ScorePlugin, Snapshot } from '../framework/interface.ts';
import { MAX_NODE_SCORE } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import { affinityTermMatches, type AffinityTerm, type NamespaceLabels, type PodInfo } from '../framework/pod-info.ts';
import type { OwnedTerm } from '../framework/interface.ts';
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

/** topologyKey → topology value → count (nested so lookups allocate nothing). */
type Counts = Map<string, Map<string, number>>;

function bump(m: Counts, nodeInfo: NodeInfo, key: string, delta: number): void {
  const v = nodeInfo.labels?.[key];
  if (v === undefined) return;
  let inner = m.get(key);
  if (!inner) m.set(key, (inner = new Map()));
  const n = (inner.get(v) ?? 0) + delta;
  if (n === 0) {
    inner.delete(v);
    if (inner.size === 0) m.delete(key);
  } else inner.set(v, n);
}

const count = (m: Counts, key: string, value: string): number => m.get(key)?.get(value) ?? 0;

function cloneCounts(m: Counts): Counts {
  const c: Counts = new Map();
  for (const [k, v] of m) c.set(k, new Map(v));
  return c;
}

/** The existing pods a term could match, from the label index; undefined when the term is not indexable. */
function candidates(snap: Snapshot, t: AffinityTerm): PodInfo[] | undefined {
  const ik = t.selector.indexKey;
  if (!ik || t.allNamespaces || t.namespaceSelector !== undefined) return undefined;
  const out: PodInfo[] = [];
  for (const ns of t.namespaces) for (const p of snap.podsWithLabel(ns, ik[0], ik[1])) out.push(p);
  return out;
}

const nodeOf = (snap: Snapshot, p: PodInfo): NodeInfo | undefined => {
  const n = p.pod.spec.nodeName;
  return n ? snap.get(n) : undefined;
};

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
    return new FilterState(cloneCounts(this.existingAnti), cloneCounts(this.affinity), cloneCounts(this.anti));
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
    // Existing pods' required anti-affinity terms that match the incoming pod, found through its labels.
    const seen = (ot: OwnedTerm) => {
      if (!affinityTermMatches(ot.term, pod, ns)) return;
      const n = nodeOf(snap, ot.owner);
      if (n) bump(st.existingAnti, n, ot.term.topologyKey, 1);
    };
    for (const k in pod.labels ?? {}) for (const ot of snap.antiAffinityTermsRequiringLabel(k, (pod.labels as Record<string, string>)[k] as string)) seen(ot);
    for (const ot of snap.unindexedAntiAffinityTerms()) seen(ot);
    const hasOwn = pod.requiredAffinity.length > 0 || pod.requiredAntiAffinity.length > 0;
    if (!hasOwn && st.existingAnti.size === 0) return Status.skip();
    if (pod.requiredAffinity.length) {
      const cands = candidates(snap, pod.requiredAffinity[0] as AffinityTerm);
      const visit = (e: PodInfo, n: NodeInfo) => {
        if (matchesAll(pod.requiredAffinity, e, ns)) for (const t of pod.requiredAffinity) bump(st.affinity, n, t.topologyKey, 1);
      };
      if (cands)
        for (const e of cands) {
          const n = nodeOf(snap, e);
          if (n) visit(e, n);
        }
      else for (const n of snap.nodeInfos()) if (n.node) for (const e of n.pods) visit(e, n);
    }
    for (const t of pod.requiredAntiAffinity) {
      const cands = candidates(snap, t);
      if (cands)
        for (const e of cands) {
          if (!affinityTermMatches(t, e, ns)) continue;
          const n = nodeOf(snap, e);
          if (n) bump(st.anti, n, t.topologyKey, 1);
        }
      else for (const n of snap.nodeInfos()) if (n.node) for (const e of n.pods) if (affinityTermMatches(t, e, ns)) bump(st.anti, n, t.topologyKey, 1);
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
        if (count(st.affinity, t.topologyKey, v) <= 0) podsExist = false;
      }
      // The first pod of a group that matches its own terms may go anywhere the keys exist.
      if (!podsExist && !(st.affinity.size === 0 && matchesAll(pod.requiredAffinity, pod, this.handle.namespaceLabels)))
        return Status.unresolvable(ErrReasonAffinityRulesNotMatch);
    }
    if (st.anti.size > 0)
      for (const t of pod.requiredAntiAffinity) {
        const v = labels[t.topologyKey];
        if (v !== undefined && count(st.anti, t.topologyKey, v) > 0) return Status.unschedulable(ErrReasonAntiAffinityRulesNotMatch);
      }
    if (st.existingAnti.size > 0)
      for (const [key, values] of st.existingAnti) {
        const v = labels[key];
        if (v !== undefined && (values.get(v) ?? 0) > 0) return Status.unschedulable(ErrReasonExistingAntiAffinityRulesNotMatch);
      }
    return null;
  }

  preScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): MaybeStatus {
    if (nodes.length === 0) return null;
    const snap = this.handle.snapshot();
    const ns = this.handle.namespaceLabels;
    const hasPreferred = pod.preferredAffinity.length > 0 || pod.preferredAntiAffinity.length > 0;
    const withAffinity = snap.havePodsWithScoringTerms();
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
      for (const e of hasPreferred ? n.pods : n.podsWithScoringTerms) {
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
