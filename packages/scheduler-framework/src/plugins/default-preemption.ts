// PostFilter: when a pod fits nowhere, find a node where evicting lower-priority pods makes it fit, choose
// victims as Kubernetes does (remove all lower-priority pods, then reprieve the most important ones that
// can stay), pick the node by the lowest highest-victim priority, lowest priority sum, fewest victims and
// latest start, delete the victims and nominate the node. preemptionPolicy: Never opts out.
import type { Pod } from '@kemu/api';
import type { CycleState } from '../framework/cycle-state.ts';
import type { Handle, PostFilterPlugin, PostFilterResult } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import { fitErrorMessage, newDiagnosis } from '../framework/fit-error.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Code, Status, type MaybeStatus } from '../framework/status.ts';
import { Names } from './names.ts';

export const ErrPreemptionNotHelpful = 'Preemption is not helpful for scheduling';
export const ErrNoVictims = 'No preemption victims found for incoming pod';
export const ErrNotEligibleNever = 'not eligible due to preemptionPolicy=Never.';
export const ErrNotEligibleTerminating = 'not eligible due to a terminating pod on the nominated node.';

export interface DefaultPreemptionArgs {
  minCandidateNodesPercentage: number;
  minCandidateNodesAbsolute: number;
}

interface Candidate {
  nodeName: string;
  victims: PodInfo[];
}

function startTime(p: PodInfo): number {
  const s = p.pod.status?.startTime ?? p.pod.metadata.creationTimestamp;
  return s ? Date.parse(s) : 0;
}

/** MoreImportantPod: higher priority, then earlier start. */
function moreImportant(a: PodInfo, b: PodInfo): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  return startTime(a) - startTime(b);
}

export class DefaultPreemption implements PostFilterPlugin {
  readonly name = Names.DefaultPreemption;
  constructor(
    private readonly handle: Handle,
    private readonly args: DefaultPreemptionArgs = { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 },
  ) {}

  private eligible(pod: PodInfo, statuses: ReadonlyMap<string, Status>): string | undefined {
    if (pod.pod.spec.preemptionPolicy === 'Never') return ErrNotEligibleNever;
    const nom = pod.pod.status?.nominatedNodeName;
    if (nom) {
      if (statuses.get(nom)?.code === Code.UnschedulableAndUnresolvable) return undefined;
      const ni = this.handle.snapshot().get(nom);
      if (ni?.pods.some((p) => p.pod.metadata.deletionTimestamp && p.priority < pod.priority)) return ErrNotEligibleTerminating;
    }
    return undefined;
  }

  async postFilter(
    state: CycleState,
    pod: PodInfo,
    statuses: ReadonlyMap<string, Status>,
  ): Promise<{ result?: PostFilterResult; status: MaybeStatus }> {
    const notEligible = this.eligible(pod, statuses);
    if (notEligible) return { status: Status.unschedulable(`preemption: ${notEligible}`) };
    const all = this.handle.snapshot().nodeInfos();
    const d = newDiagnosis();
    const potential: NodeInfo[] = [];
    for (const n of all) {
      if (statuses.get(n.name)?.code === Code.UnschedulableAndUnresolvable) d.nodeToStatus.set(n.name, Status.unresolvable(ErrPreemptionNotHelpful));
      else potential.push(n);
    }
    const candidates: Candidate[] = [];
    if (potential.length > 0) {
      let num = Math.trunc((potential.length * this.args.minCandidateNodesPercentage) / 100);
      if (num < this.args.minCandidateNodesAbsolute) num = this.args.minCandidateNodesAbsolute;
      if (num > potential.length) num = potential.length;
      const offset = Math.floor(Math.random() * potential.length);
      for (let i = 0; i < potential.length && candidates.length < num; i++) {
        const n = potential[(offset + i) % potential.length] as NodeInfo;
        const r = this.selectVictims(state, pod, n);
        if (r instanceof Status) d.nodeToStatus.set(n.name, r);
        else candidates.push({ nodeName: n.name, victims: r });
      }
    }
    if (candidates.length === 0) {
      return { result: { nominatedNodeName: '' }, status: Status.unschedulable(`preemption: ${fitErrorMessage(all.length, d)}`) };
    }
    const best = pickOne(candidates);
    await this.prepare(best, pod);
    return { result: { nominatedNodeName: best.nodeName }, status: null };
  }

  /** The victims on this node, or the status explaining why preemption cannot help there. */
  private selectVictims(state0: CycleState, pod: PodInfo, node: NodeInfo): PodInfo[] | Status {
    const state = state0.clone();
    const ni = node.clone();
    const potential: PodInfo[] = [];
    for (const p of [...ni.pods]) {
      if (p.priority < pod.priority) {
        potential.push(p);
        ni.removePod(p.key);
        this.handle.runPreFilterExtensionRemovePod(state, pod, p, ni);
      }
    }
    if (potential.length === 0) return Status.unresolvable(ErrNoVictims);
    const fits = this.handle.runFilterPlugins(state, pod, ni);
    if (fits && !fits.isSuccess()) return fits;
    potential.sort(moreImportant);
    const victims: PodInfo[] = [];
    for (const p of potential) {
      ni.addPod(p);
      this.handle.runPreFilterExtensionAddPod(state, pod, p, ni);
      const s = this.handle.runFilterPlugins(state, pod, ni);
      if (s && !s.isSuccess()) {
        ni.removePod(p.key);
        this.handle.runPreFilterExtensionRemovePod(state, pod, p, ni);
        victims.push(p);
      }
    }
    return victims;
  }

  private async prepare(c: Candidate, pod: PodInfo): Promise<void> {
    const client = this.handle.client;
    await Promise.all(
      c.victims.map(async (v) => {
        try {
          await client?.deletePod(v.namespace, v.name, v.uid);
          this.handle.event(v.pod, 'Normal', 'Preempted', `Preempted by pod ${pod.uid} on node ${c.nodeName}`);
        } catch (e) {
          this.handle.logger.warn({ err: String(e), victim: v.key }, 'failed to delete preemption victim');
        }
      }),
    );
    // Lower-priority pods nominated to this node lose their nomination.
    const nominated = this.handle.nominator?.nominatedPodsForNode(c.nodeName) ?? [];
    for (const p of nominated) {
      if (p.priority >= pod.priority || p.key === pod.key) continue;
      this.handle.nominator?.deleteNominatedPod(p);
      void client?.patchPodStatus(p.pod as Pod, { nominatedNodeName: null }).catch(() => undefined);
    }
  }
}

/** pickOneNodeForPreemption without PDBs. */
function pickOne(cs: Candidate[]): Candidate {
  const highest = (c: Candidate) => (c.victims.length ? Math.max(...c.victims.map((v) => v.priority)) : -Infinity);
  const sum = (c: Candidate) => c.victims.reduce((a, v) => a + v.priority + 2 ** 31, 0);
  const earliest = (c: Candidate) => {
    const top = highest(c);
    const ts = c.victims.filter((v) => v.priority === top).map(startTime);
    return ts.length ? Math.min(...ts) : Infinity;
  };
  let best = cs;
  const keepMin = (f: (c: Candidate) => number) => {
    const m = Math.min(...best.map(f));
    best = best.filter((c) => f(c) === m);
  };
  keepMin(highest);
  if (best.length > 1) keepMin(sum);
  if (best.length > 1) keepMin((c) => c.victims.length);
  if (best.length > 1) keepMin((c) => -earliest(c));
  return best[0] as Candidate;
}
