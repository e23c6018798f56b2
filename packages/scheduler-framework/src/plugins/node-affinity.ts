// Filter: spec.nodeSelector and required node affinity. PreFilter narrows the node set when every term pins
// metadata.name. Score: sum of the weights of matching preferred terms, normalized to [0, 100].
import type { Pod } from '@kemu/api';
import type { CycleState, StateData } from '../framework/cycle-state.ts';
import type { FilterPlugin, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../framework/interface.ts';
import { MAX_NODE_SCORE, PreFilterResult } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { compileNodeSelectorTerm, compileNodeSelectorTerms, compileSet, type NodeLike, type NodeMatcher } from '../util/selector.ts';
import { Names } from './names.ts';
import { defaultNormalizeScore } from './normalize.ts';

export const ErrReasonPod = "node(s) didn't match Pod's node affinity/selector";

const PRE_FILTER_KEY = 'PreFilter' + Names.NodeAffinity;
const PRE_SCORE_KEY = 'PreScore' + Names.NodeAffinity;

/** nodeSelector AND required node affinity (RequiredNodeAffinity), compiled. */
export function requiredNodeAffinity(pod: Pod): NodeMatcher | undefined {
  const sel = pod.spec.nodeSelector;
  const req = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!sel && !req) return undefined;
  const selM = sel ? compileSet(sel) : undefined;
  const reqM = req ? compileNodeSelectorTerms(req.nodeSelectorTerms ?? []) : undefined;
  return (n: NodeLike) => (selM === undefined || selM(n.labels)) && (reqM === undefined || reqM(n));
}

class MatcherState implements StateData {
  constructor(readonly match: NodeMatcher) {}
  clone(): StateData {
    return this;
  }
}

class PreferredState implements StateData {
  constructor(readonly terms: { weight: number; match: NodeMatcher }[]) {}
  clone(): StateData {
    return this;
  }
}

export class NodeAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin {
  readonly name = Names.NodeAffinity;

  preFilter(state: CycleState, pod: PodInfo): PreFilterResult | MaybeStatus {
    const m = requiredNodeAffinity(pod.pod);
    if (!m) return Status.skip();
    state.write(PRE_FILTER_KEY, new MatcherState(m));
    // Terms that all pin metadata.name In [...] let the scheduler look at those nodes only.
    const terms = pod.pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    if (!terms || terms.length === 0) return null;
    const names = new Set<string>();
    for (const t of terms) {
      const f = (t.matchFields ?? []).find((x) => x.key === 'metadata.name' && x.operator === 'In');
      if (!f) return null;
      for (const v of f.values ?? []) names.add(v);
    }
    return new PreFilterResult(names);
  }

  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    let m = state.read<MatcherState>(PRE_FILTER_KEY)?.match;
    if (!m) {
      m = requiredNodeAffinity(pod.pod);
      if (!m) return null;
    }
    return m(nodeInfo) ? null : Status.unresolvable(ErrReasonPod);
  }

  preScore(state: CycleState, pod: PodInfo): MaybeStatus {
    const pref = pod.pod.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
    const terms = pref.filter((p) => p.weight !== 0).map((p) => ({ weight: p.weight, match: compileNodeSelectorTerm(p.preference) }));
    if (terms.length === 0) return Status.skip();
    state.write(PRE_SCORE_KEY, new PreferredState(terms));
    return null;
  }

  score(state: CycleState, _pod: PodInfo, nodeInfo: NodeInfo): number {
    const terms = state.read<PreferredState>(PRE_SCORE_KEY)?.terms;
    if (!terms) return 0;
    let s = 0;
    for (const t of terms) if (t.match(nodeInfo)) s += t.weight;
    return s;
  }

  normalizeScore(_s: CycleState, _p: PodInfo, _n: readonly NodeInfo[], scores: number[]): MaybeStatus {
    defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
    return null;
  }
}
