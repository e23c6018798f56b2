// Scale-down candidates (core/scaledown/planner): a node of a group is unneeded while its requested cpu and memory
// both stay below --scale-down-utilization-threshold of its allocatable and its pods would fit on the other nodes
// (checked with the scheduler's filters, each removal taking the room it uses). Once unneeded for
// --scale-down-unneeded-time it is removable, as long as its group stays at or above its min.
import type { Node, Pod } from '@kemu/api';
import type { NodeGroup } from '../cloudprovider/interface.ts';
import { podRequests } from '../resources.ts';
import { placePod, snapshotOf, type PredicateChecker } from '../simulator/predicates.ts';
import { drainVerdict, type BlockingReason, type DrainOptions } from './drain-rules.ts';

export const TO_BE_DELETED_TAINT = 'ToBeDeletedByClusterAutoscaler';
export const SCALE_DOWN_DISABLED = 'cluster-autoscaler.kubernetes.io/scale-down-disabled';

export interface PlannerInput {
  now: number;
  /** Ready nodes. */
  nodes: readonly Node[];
  /** Pods bound to nodes, not terminated. */
  pods: readonly Pod[];
  groupOf: (n: Node) => NodeGroup | undefined;
  /** Each group's current target size. */
  targets: ReadonlyMap<string, number>;
  /** Nodes being deleted right now (excluded everywhere). */
  deleting: ReadonlySet<string>;
}

export interface PlannerOptions extends DrainOptions {
  utilizationThreshold: number;
  unneededTimeMs: number;
}

export type Unremovable = 'ScaleDownDisabledAnnotation' | 'NotAutoscaled' | 'NotUnderutilized' | 'NoPlaceToMovePods' | BlockingReason;

export interface Removable {
  node: Node;
  group: NodeGroup;
  /** Pods to evict. */
  pods: Pod[];
}

export interface PlannerResult {
  /** Node name → how long (ms) it has been unneeded. */
  unneeded: Map<string, number>;
  removable: Removable[];
  unremovable: Map<string, Unremovable>;
  utilization: Map<string, number>;
}

export function utilization(node: Node, pods: readonly Pod[]): number {
  const a = podRequests.allocatable(node);
  let cpu = 0;
  let memory = 0;
  for (const p of pods) {
    const r = podRequests.of(p);
    cpu += r.cpu;
    memory += r.memory;
  }
  return Math.max(a.cpu ? cpu / a.cpu : 0, a.memory ? memory / a.memory : 0);
}

const name = (n: Node) => n.metadata.name ?? '';

export class ScaleDownPlanner {
  private readonly since = new Map<string, number>();

  constructor(
    private readonly checker: PredicateChecker,
    private readonly o: PlannerOptions,
  ) {}

  /** Forget a node's clock (after a scale-up, or when it was removed). */
  reset(nodeName?: string): void {
    if (nodeName === undefined) this.since.clear();
    else this.since.delete(nodeName);
  }

  update(input: PlannerInput): PlannerResult {
    const live = input.nodes.filter((n) => !input.deleting.has(name(n)) && !n.spec?.taints?.some((t) => t.key === TO_BE_DELETED_TAINT));
    const podsOn = new Map<string, Pod[]>();
    for (const p of input.pods) if (p.spec.nodeName) (podsOn.get(p.spec.nodeName) ?? podsOn.set(p.spec.nodeName, []).get(p.spec.nodeName) ?? []).push(p);
    const snapshot = snapshotOf(live, input.pods);
    const room = new Map<string, number>();
    for (const [g, t] of input.targets) room.set(g, t);
    const result: PlannerResult = { unneeded: new Map(), removable: [], unremovable: new Map(), utilization: new Map() };
    const stillUnneeded = new Set<string>();

    for (const node of live) {
      const n = name(node);
      const group = input.groupOf(node);
      const pods = podsOn.get(n) ?? [];
      const u = utilization(node, pods);
      result.utilization.set(n, u);
      const why = ((): Unremovable | undefined => {
        if (!group) return 'NotAutoscaled';
        if (node.metadata.annotations?.[SCALE_DOWN_DISABLED] === 'true') return 'ScaleDownDisabledAnnotation';
        if (u >= this.o.utilizationThreshold) return 'NotUnderutilized';
        return undefined;
      })();
      if (why) {
        result.unremovable.set(n, why);
        continue;
      }
      const toMove: Pod[] = [];
      let blocked: BlockingReason | undefined;
      for (const p of pods) {
        const v = drainVerdict(p, this.o);
        if (v.kind === 'block') blocked = v.reason;
        if (v.kind === 'move') toMove.push(p);
      }
      if (blocked) {
        result.unremovable.set(n, blocked);
        continue;
      }
      // Where would its pods go? Not onto itself nor onto nodes already found unneeded (they may go too).
      const destinations = live.map(name).filter((d) => d !== n && !stillUnneeded.has(d));
      const placed: { pod: Pod; on: string }[] = [];
      let fits = true;
      for (const p of toMove) {
        const moving = { ...p, spec: { ...p.spec, nodeName: undefined } };
        const on = this.checker.fitsAnywhere(snapshot, moving, destinations);
        if (!on) {
          fits = false;
          break;
        }
        placePod(snapshot, moving, on);
        placed.push({ pod: moving, on });
      }
      if (!fits) {
        for (const x of placed) snapshot.removePod(`${x.pod.metadata.namespace ?? 'default'}/${x.pod.metadata.name}`);
        for (const p of toMove) snapshot.addOrUpdatePod(p);
        result.unremovable.set(n, 'NoPlaceToMovePods');
        continue;
      }
      stillUnneeded.add(n);
      const since = this.since.get(n) ?? input.now;
      this.since.set(n, since);
      result.unneeded.set(n, input.now - since);
      const left = room.get((group as NodeGroup).id) ?? 0;
      if (input.now - since >= this.o.unneededTimeMs && left > (group as NodeGroup).minSize) {
        room.set((group as NodeGroup).id, left - 1);
        result.removable.push({ node, group: group as NodeGroup, pods: toMove });
      }
    }
    for (const n of [...this.since.keys()]) if (!stillUnneeded.has(n)) this.since.delete(n);
    return result;
  }
}
