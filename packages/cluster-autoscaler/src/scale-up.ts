// One scan's scale-up decision (core/scaleup/orchestrator): pods that would fit on a ready node or on a node the
// cloud is still provisioning are left to the scheduler; for the rest every group below its max is estimated
// (binpacking on its template), the expander picks one option, and pods no group can help get the reasons why.
import type { Node, Pod } from '@kemu/api';
import type { SchedulerCache } from '@kemu/scheduler-framework';
import type { NodeGroup } from './cloudprovider/interface.ts';
import { estimate, imaginedNode } from './estimator.ts';
import { choose, type ExpanderName, type Option } from './expander.ts';
import { placePod, snapshotOf, type PredicateChecker } from './simulator/predicates.ts';

export const MAX_NODE_GROUP_SIZE_REACHED = 'max node group size reached';

export interface GroupView {
  group: NodeGroup;
  target: number;
  /** Ready nodes of the group (registered and able to take pods). */
  readyCount: number;
}

export interface ScaleUpInput {
  /** Ready nodes able to take pods (every group's, and nodes no group owns). */
  nodes: readonly Node[];
  /** Pods bound to nodes. */
  assigned: readonly Pod[];
  /** Pods the scheduler marked Unschedulable. */
  pending: readonly Pod[];
  groups: readonly GroupView[];
  expanders: readonly ExpanderName[];
  random?: () => number;
}

export interface ScaleUpPlan {
  /** Pods that fit on a ready node or an upcoming one: the scheduler will place them. */
  waiting: Pod[];
  /** The chosen option: the group grows from `from` to `to` for `pods`. */
  scaleUp?: { group: NodeGroup; from: number; to: number; pods: Pod[] };
  /** Pods no option helps, with their NotTriggerScaleUp message. */
  notTriggered: { pod: Pod; message: string }[];
}

const uid = (p: Pod) => p.metadata.uid ?? `${p.metadata.namespace}/${p.metadata.name}`;

/** Nodes the cloud was asked for and that are not ready yet, as template nodes in the snapshot. */
function addUpcoming(snapshot: SchedulerCache, groups: readonly GroupView[]): string[] {
  const names: string[] = [];
  for (const g of groups)
    for (let i = 0; i < g.target - g.readyCount; i++) {
      const { node, name } = imaginedNode(g.group.templateNode(), g.group.id, i, 'upcoming-node-for');
      snapshot.addNode(node);
      names.push(name);
    }
  return names;
}

export function planScaleUp(checker: PredicateChecker, input: ScaleUpInput): ScaleUpPlan {
  const base = () => {
    const s = snapshotOf(input.nodes, input.assigned);
    const upcoming = addUpcoming(s, input.groups);
    return { s, candidates: [...input.nodes.map((n) => n.metadata.name ?? ''), ...upcoming] };
  };
  // FilterOutSchedulable: pods fitting the cluster as it is (or will be once upcoming nodes register).
  const { s: snapshot, candidates } = base();
  const waiting: Pod[] = [];
  const left: Pod[] = [];
  for (const pod of input.pending) {
    const on = checker.fitsAnywhere(snapshot, pod, candidates);
    if (on) {
      placePod(snapshot, pod, on);
      waiting.push(pod);
    } else left.push(pod);
  }
  if (left.length === 0) return { waiting, notTriggered: [] };

  // Per pod, per reason: how many groups gave it.
  const reasons = new Map<string, Map<string, number>>();
  const note = (pod: Pod, reason: string) => {
    let m = reasons.get(uid(pod));
    if (!m) reasons.set(uid(pod), (m = new Map()));
    m.set(reason, (m.get(reason) ?? 0) + 1);
  };
  const options: Option[] = [];
  for (const g of input.groups) {
    const room = g.group.maxSize - g.target;
    if (room <= 0) {
      for (const p of left) note(p, MAX_NODE_GROUP_SIZE_REACHED);
      continue;
    }
    // Each group is estimated on a fresh snapshot that already holds the pods the cluster takes.
    const { s } = base();
    for (const p of waiting) {
      const on = checker.fitsAnywhere(s, p, candidates);
      if (on) placePod(s, p, on);
    }
    const est = estimate(checker, s, g.group.templateNode(), g.group.id, left, room);
    for (const p of left) {
      const why = est.rejected.get(uid(p));
      if (why) for (const r of why) note(p, r);
    }
    if (est.nodeCount > 0) options.push({ groupId: g.group.id, nodeCount: est.nodeCount, pods: est.pods, template: g.group.templateNode() });
    else if (est.pods.length === 0) for (const p of left) if (!est.rejected.has(uid(p))) note(p, MAX_NODE_GROUP_SIZE_REACHED);
  }
  const chosen = choose(options, input.expanders, input.random);
  const helped = new Set((chosen?.pods ?? []).map(uid));
  // Pods another option would have helped wait for the next scan; only pods no option helps get the event.
  const anyHelp = new Set(options.flatMap((o) => o.pods.map(uid)));
  const notTriggered = left
    .filter((p) => !helped.has(uid(p)) && !anyHelp.has(uid(p)))
    .map((pod) => ({ pod, message: notTriggeredMessage(reasons.get(uid(pod))) }));
  const plan: ScaleUpPlan = { waiting, notTriggered };
  if (chosen) {
    const g = input.groups.find((x) => x.group.id === chosen.groupId) as GroupView;
    plan.scaleUp = { group: g.group, from: g.target, to: Math.min(g.group.maxSize, g.target + chosen.nodeCount), pods: chosen.pods };
  }
  return plan;
}

/** "pod didn't trigger scale-up: 1 Insufficient cpu, 2 max node group size reached" (reasons sorted). */
export function notTriggeredMessage(reasons: Map<string, number> | undefined): string {
  const parts = [...(reasons ?? new Map<string, number>())].map(([r, n]) => `${n} ${r}`).sort();
  return `pod didn't trigger scale-up: ${parts.join(', ')}`;
}

/** "pod triggered scale-up: [{pool 1->2 (max: 5)}]". */
export function triggeredMessage(group: string, from: number, to: number, max: number): string {
  return `pod triggered scale-up: [{${group} ${from}->${to} (max: ${max})}]`;
}
