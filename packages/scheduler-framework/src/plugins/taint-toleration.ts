// Filter: NoSchedule/NoExecute taints must be tolerated. Score: fewer untolerated PreferNoSchedule taints
// is better (normalized in reverse).
import type { Toleration } from '@kemu/api';
import type { CycleState, StateData } from '../framework/cycle-state.ts';
import type { FilterPlugin, PreScorePlugin, ScorePlugin } from '../framework/interface.ts';
import { MAX_NODE_SCORE } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { findUntoleratedTaint, isNoScheduleOrNoExecute, tolerationsTolerateTaint } from '../util/taints.ts';
import { Names } from './names.ts';
import { defaultNormalizeScore } from './normalize.ts';

export const untoleratedTaintReason = (key: string, value: string | undefined): string =>
  `node(s) had untolerated taint {${key}: ${value ?? ''}}`;

const PRE_SCORE_KEY = 'PreScore' + Names.TaintToleration;

class PreScoreState implements StateData {
  constructor(readonly tolerations: Toleration[]) {}
  clone(): StateData {
    return this;
  }
}

export class TaintToleration implements FilterPlugin, PreScorePlugin, ScorePlugin {
  readonly name = Names.TaintToleration;

  filter(_s: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const taint = findUntoleratedTaint(nodeInfo.node?.spec?.taints, pod.pod.spec.tolerations, isNoScheduleOrNoExecute);
    if (!taint) return null;
    return Status.unresolvable(untoleratedTaintReason(taint.key, taint.value));
  }

  preScore(state: CycleState, pod: PodInfo): MaybeStatus {
    const tols = (pod.pod.spec.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
    state.write(PRE_SCORE_KEY, new PreScoreState(tols));
    return null;
  }

  score(state: CycleState, _pod: PodInfo, nodeInfo: NodeInfo): number {
    const taints = nodeInfo.node?.spec?.taints;
    if (!taints) return 0;
    const tols = state.read<PreScoreState>(PRE_SCORE_KEY)?.tolerations ?? [];
    let n = 0;
    for (const t of taints) if (t.effect === 'PreferNoSchedule' && !tolerationsTolerateTaint(tols, t)) n++;
    return n;
  }

  normalizeScore(_s: CycleState, _p: PodInfo, _n: readonly NodeInfo[], scores: number[]): MaybeStatus {
    defaultNormalizeScore(MAX_NODE_SCORE, true, scores);
    return null;
  }
}
