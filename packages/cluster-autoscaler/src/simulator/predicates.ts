// "Would this pod fit on that node?" answered by the scheduler's own PreFilter and Filter plugins (the default
// profile of @kemu/scheduler-framework), against a SchedulerCache the autoscaler fills with real and imagined
// nodes — the autoscaler's PredicateChecker. No scoring: the autoscaler only needs feasibility.
import type { Node, Pod } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import { CycleState, Framework, PodInfo, SchedulerCache, Status, defaultProfile, inTreeRegistry } from '@kemu/scheduler-framework';

export class PredicateChecker {
  private readonly framework: Framework;
  private current: SchedulerCache = new SchedulerCache();

  constructor(clock: Clock, logger: Logger) {
    this.framework = new Framework(inTreeRegistry(), defaultProfile({}), {
      snapshot: () => this.current,
      client: undefined,
      clock,
      logger,
      nominator: undefined,
      selectorLister: undefined,
      namespaceLabels: undefined,
      event: () => undefined,
    });
  }

  /** Null when the pod fits on nodeName in this snapshot; else the first rejecting plugin's status. */
  check(snapshot: SchedulerCache, pod: Pod, nodeName: string): Status | null {
    this.current = snapshot;
    const info = new PodInfo(pod);
    const nodeInfo = snapshot.get(nodeName);
    if (!nodeInfo) throw new Error(`node ${nodeName} is not in the snapshot`);
    const state = new CycleState();
    const pre = this.framework.runPreFilterPlugins(state, info, snapshot.nodeInfos());
    if (pre.status) return pre.status;
    // PreFilter narrowed the candidates (NodeAffinity on metadata.name) and this node is not one of them.
    if (pre.nodeNames && !pre.nodeNames.has(nodeName)) return Status.unresolvable("node(s) didn't match Pod's node affinity/selector");
    return this.framework.runFilterPlugins(state, info, nodeInfo);
  }

  /** The first node (in the given order) the pod fits on, or undefined. */
  fitsAnywhere(snapshot: SchedulerCache, pod: Pod, nodeNames: Iterable<string>): string | undefined {
    for (const n of nodeNames) if (this.check(snapshot, pod, n) === null) return n;
    return undefined;
  }
}

/** A snapshot of these nodes with their assigned pods (pods without spec.nodeName are left out). */
export function snapshotOf(nodes: readonly Node[], pods: readonly Pod[]): SchedulerCache {
  const c = new SchedulerCache();
  for (const n of nodes) c.addNode(n);
  const names = new Set(nodes.map((n) => n.metadata.name));
  for (const p of pods) if (p.spec.nodeName && names.has(p.spec.nodeName)) c.addOrUpdatePod(p);
  return c;
}

/** Places a pod on a node of the snapshot (as if the scheduler had bound it there). */
export function placePod(snapshot: SchedulerCache, pod: Pod, nodeName: string): void {
  snapshot.addOrUpdatePod({ ...pod, spec: { ...pod.spec, nodeName } });
}
