// The binpacking estimator (estimator.BinpackingNodeEstimator): how many nodes of a group's template the pending
// pods need. Pods are packed largest first onto the nodes already imagined, and a new template node is imagined
// only when a pod fits none of them; a pod that does not fit even an empty template node is not helped by the group.
import type { Node, Pod } from '@kemu/api';
import type { SchedulerCache } from '@kemu/scheduler-framework';
import { placePod, type PredicateChecker } from './simulator/predicates.ts';
import { podRequests } from './resources.ts';

export interface Estimate {
  nodeCount: number;
  /** The pods that fit on the imagined nodes. */
  pods: Pod[];
  /** Why pods did not fit an empty template node: pod uid → the rejecting reasons. */
  rejected: Map<string, string[]>;
}

/** A template node under a name of its own (template-node-for-<group>-<i>, as the autoscaler names them). */
export function imaginedNode(template: Node, group: string, i: number, tag = 'template-node-for'): { node: Node; name: string } {
  const name = `${tag}-${group}-${i}`;
  const node = { ...template, metadata: { ...template.metadata, name, labels: { ...(template.metadata.labels ?? {}), 'kubernetes.io/hostname': name } } };
  return { node, name };
}

export function estimate(checker: PredicateChecker, snapshot: SchedulerCache, template: Node, group: string, pods: readonly Pod[], maxNodes: number): Estimate {
  const allocatable = podRequests.allocatable(template);
  // Largest first, by the larger share of the template's cpu or memory (binpacking's score).
  const score = (p: Pod) => {
    const r = podRequests.of(p);
    return Math.max(allocatable.cpu ? r.cpu / allocatable.cpu : 0, allocatable.memory ? r.memory / allocatable.memory : 0);
  };
  const sorted = [...pods].sort((a, b) => score(b) - score(a));
  const added: string[] = [];
  const scheduled: Pod[] = [];
  const rejected = new Map<string, string[]>();
  for (const pod of sorted) {
    const on = checker.fitsAnywhere(snapshot, pod, added);
    if (on) {
      placePod(snapshot, pod, on);
      scheduled.push(pod);
      continue;
    }
    // Would it fit an empty node of this group at all? Checked even at the limit, for the pod's event.
    const { node, name } = imaginedNode(template, group, added.length);
    snapshot.addNode(node);
    const status = checker.check(snapshot, pod, name);
    if (status !== null || added.length >= maxNodes) {
      snapshot.removeNode(name);
      if (status !== null) rejected.set(pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`, [...status.reasons]);
      continue;
    }
    added.push(name);
    placePod(snapshot, pod, name);
    scheduled.push(pod);
  }
  return { nodeCount: added.length, pods: scheduled, rejected };
}
