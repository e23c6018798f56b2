// One scheduling decision (schedulePod): PreFilter, Filter over nodes starting where the last cycle stopped
// until numFeasibleNodesToFind fit, PreScore/Score/NormalizeScore × weight, then the highest total with a
// random tie-break. Synchronous: nothing in here waits on I/O.
import { CycleState } from './framework/cycle-state.ts';
import { FitError, NO_NODES_AVAILABLE, newDiagnosis, type Diagnosis } from './framework/fit-error.ts';
import type { Nominator, Snapshot } from './framework/interface.ts';
import type { NodeInfo } from './framework/node-info.ts';
import type { PodInfo } from './framework/pod-info.ts';
import type { Framework } from './framework/runtime.ts';
import { Code, Status as StatusClass, type MaybeStatus, type Status } from './framework/status.ts';

export const MIN_FEASIBLE_NODES_TO_FIND = 100;
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/** How many feasible nodes to find before stopping (adaptive percentageOfNodesToScore when 0). */
export function numFeasibleNodesToFind(percentage: number, numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND || percentage >= 100) return numAllNodes;
  let pct = percentage;
  if (pct <= 0) {
    pct = 50 - Math.trunc(numAllNodes / 125);
    if (pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const n = Math.trunc((numAllNodes * pct) / 100);
  return n < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : n;
}

export type ScheduleResult =
  | { kind: 'scheduled'; node: string; evaluatedNodes: number; feasibleNodes: number }
  | { kind: 'unschedulable'; fitError: FitError }
  | { kind: 'error'; error: Error; status?: Status };

export class ScheduleAlgorithm {
  private nextStartNodeIndex = 0;

  constructor(
    private readonly percentageOfNodesToScore: number,
    private readonly nominator: Nominator | undefined,
    private readonly random: () => number = Math.random,
  ) {}

  schedulePod(fwk: Framework, state: CycleState, pod: PodInfo, snapshot: Snapshot): ScheduleResult {
    const all = snapshot.nodeInfos();
    if (all.length === 0) return { kind: 'error', error: new Error(NO_NODES_AVAILABLE) };
    const d = newDiagnosis();
    const feasible = this.findNodesThatFit(fwk, state, pod, snapshot, all, d);
    if (feasible instanceof Error) return { kind: 'error', error: feasible };
    if (feasible.length === 0) return { kind: 'unschedulable', fitError: new FitError(pod.key, all.length, d) };
    const evaluated = feasible.length + d.nodeToStatus.size;
    if (feasible.length === 1)
      return { kind: 'scheduled', node: (feasible[0] as NodeInfo).name, evaluatedNodes: evaluated, feasibleNodes: 1 };
    const pre = fwk.runPreScorePlugins(state, pod, feasible);
    if (pre && !pre.isSuccess()) return { kind: 'error', error: new Error(pre.message()), status: pre };
    const { totals, status } = fwk.runScorePlugins(state, pod, feasible);
    if (status && !status.isSuccess()) return { kind: 'error', error: new Error(status.message()), status };
    return { kind: 'scheduled', node: this.selectHost(feasible, totals), evaluatedNodes: evaluated, feasibleNodes: feasible.length };
  }

  /** Highest score; ties broken uniformly at random (reservoir sampling). */
  selectHost(nodes: readonly NodeInfo[], totals: readonly number[]): string {
    let best = 0;
    let bestScore = -Infinity;
    let ties = 0;
    for (let i = 0; i < nodes.length; i++) {
      const s = totals[i] as number;
      if (s > bestScore) {
        bestScore = s;
        best = i;
        ties = 1;
      } else if (s === bestScore) {
        ties++;
        if (this.random() * ties < 1) best = i;
      }
    }
    return (nodes[best] as NodeInfo).name;
  }

  private findNodesThatFit(
    fwk: Framework,
    state: CycleState,
    pod: PodInfo,
    snapshot: Snapshot,
    all: readonly NodeInfo[],
    d: Diagnosis,
  ): NodeInfo[] | Error {
    const { status, nodeNames } = fwk.runPreFilterPlugins(state, pod, all);
    if (status && !status.isSuccess()) {
      if (!status.isRejected()) return new Error(status.message());
      // A PreFilter rejection applies to every node.
      for (const n of all) d.nodeToStatus.set(n.name, status);
      d.preFilterMsg = status.message();
      if (status.plugin) d.unschedulablePlugins.add(status.plugin);
      return [];
    }
    const filters = fwk.activeFilters(state);
    // A node nominated by an earlier preemption is tried first.
    const nominated = pod.pod.status?.nominatedNodeName;
    if (nominated) {
      const ni = snapshot.get(nominated);
      if (ni && (!nodeNames || nodeNames.has(nominated))) {
        const s = this.filterWithNominated(fwk, state, pod, ni, filters);
        if (s === null || s.isSuccess()) return [ni];
      }
    }
    let nodes = all;
    if (nodeNames) {
      nodes = all.filter((n) => nodeNames.has(n.name));
      for (const n of all) if (!nodeNames.has(n.name)) d.nodeToStatus.set(n.name, unresolvableByPreFilter);
    }
    const n = nodes.length;
    if (n === 0) return [];
    const want = numFeasibleNodesToFind(fwk.percentageOfNodesToScore ?? this.percentageOfNodesToScore, n);
    const feasible: NodeInfo[] = [];
    const start = this.nextStartNodeIndex % n;
    let processed = 0;
    for (let i = 0; i < n; i++) {
      const ni = nodes[(start + i) % n] as NodeInfo;
      processed++;
      const s = this.filterWithNominated(fwk, state, pod, ni, filters);
      if (s === null || s.code === Code.Success) {
        feasible.push(ni);
        if (feasible.length >= want) break;
      } else if (s.code === Code.Error) {
        return new Error(s.message());
      } else {
        d.nodeToStatus.set(ni.name, s);
        if (s.plugin) d.unschedulablePlugins.add(s.plugin);
      }
    }
    this.nextStartNodeIndex = (start + processed) % n;
    return feasible;
  }

  /** Filters with pods nominated to the node at equal or higher priority counted as if running there. */
  private filterWithNominated(
    fwk: Framework,
    state: CycleState,
    pod: PodInfo,
    ni: NodeInfo,
    filters: ReturnType<Framework['activeFilters']>,
  ): MaybeStatus {
    const nominated = this.nominator && this.nominator.hasNominatedPods() ? this.nominator.nominatedPodsForNode(ni.name) : undefined;
    if (nominated && nominated.length > 0) {
      const others = nominated.filter((p) => p.key !== pod.key && p.priority >= pod.priority);
      if (others.length > 0) {
        const st = state.clone();
        const c = ni.clone();
        for (const p of others) {
          c.addPod(p);
          fwk.runPreFilterExtension(st, pod, p, c, 'add');
        }
        const s = fwk.runFilterPlugins(st, pod, c, filters);
        if (s !== null && !s.isSuccess()) return s;
      }
    }
    return fwk.runFilterPlugins(state, pod, ni, filters);
  }
}

const unresolvableByPreFilter = new StatusClass(Code.UnschedulableAndUnresolvable, ['node is filtered out by the prefilter result']);
