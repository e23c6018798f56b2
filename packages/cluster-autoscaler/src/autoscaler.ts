// One autoscaler scan (core.StaticAutoscaler.RunOnce): read the cloud's target sizes, give up on nodes not
// registered within --max-node-provision-time, plan and request a scale-up, track unneeded nodes and start at most
// one drain (or a batch of empty nodes) when no cooldown applies, then write the status ConfigMap. Drains run in the
// background; their nodes are left out of later scans until they finish.
import type { KubeObject, Node, Pod } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import type { CloudProvider } from './cloudprovider/interface.ts';
import type { ExpanderName } from './expander.ts';
import { planScaleUp, triggeredMessage, type GroupView } from './scale-up.ts';
import { ScaleDownPlanner } from './scale-down/planner.ts';
import { removeNode, type ActuatorApi } from './scale-down/actuator.ts';
import type { PredicateChecker } from './simulator/predicates.ts';
import { statusText, Transitions, type GroupStatusInput, type NodeCounts } from './status.ts';

export interface AutoscalerOptions {
  expanders: readonly ExpanderName[];
  scaleDownEnabled: boolean;
  delayAfterAddMs: number;
  delayAfterDeleteMs: number;
  delayAfterFailureMs: number;
  unneededTimeMs: number;
  utilizationThreshold: number;
  maxNodeProvisionMs: number;
  maxPodEvictionMs: number;
  evictionRetryMs: number;
  maxGracefulTerminationSec: number;
  maxEmptyBulkDelete: number;
  maxNodesTotal: number;
  skipNodesWithSystemPods: boolean;
  skipNodesWithLocalStorage: boolean;
}

export interface AutoscalerDeps {
  provider: CloudProvider;
  checker: PredicateChecker;
  clock: Clock;
  logger: Logger;
  nodes(): Node[];
  pods(): Pod[];
  actuator: ActuatorApi;
  /** Writes the status ConfigMap; resolves with it (events about scale-ups and removals go on it). */
  writeStatus(text: string): Promise<KubeObject | undefined>;
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
  random?: () => number;
}

export const isReady = (n: Node) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const isUnschedulable = (p: Pod) =>
  !p.spec.nodeName &&
  !p.metadata.deletionTimestamp &&
  (p.status?.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable');
const isAssigned = (p: Pod) => !!p.spec.nodeName && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

export class Autoscaler {
  private readonly planner: ScaleDownPlanner;
  private readonly transitions = new Transitions();
  private lastScaleUp: number;
  private lastDelete: number;
  private lastFailure: number;
  /** Nodes being drained or deleted. */
  readonly deleting = new Set<string>();
  private readonly drains = new Set<Promise<void>>();
  /** When each group's target last grew (for --max-node-provision-time). */
  private readonly lastIncrease = new Map<string, number>();
  private statusObject: KubeObject | undefined;

  constructor(
    private readonly d: AutoscalerDeps,
    private readonly o: AutoscalerOptions,
  ) {
    this.planner = new ScaleDownPlanner(d.checker, o);
    // As the autoscaler: cooldowns count from start-up, so a fresh leader does not remove nodes at once.
    const now = d.clock.now();
    this.lastScaleUp = now;
    this.lastDelete = now;
    this.lastFailure = now - o.delayAfterFailureMs;
  }

  /** Resolves when every drain started so far has finished. */
  async idle(): Promise<void> {
    await Promise.all([...this.drains]);
  }

  async runOnce(): Promise<void> {
    const { provider, clock, logger } = this.d;
    const now = clock.now();
    await provider.refresh();
    const nodes = this.d.nodes();
    const pods = this.d.pods();
    const ready = nodes.filter((n) => isReady(n) && !this.deleting.has(n.metadata.name ?? ''));
    const views: GroupView[] = [];
    const statusGroups: GroupStatusInput[] = [];
    const unmanaged: NodeCounts = { total: 0, ready: 0, notStarted: 0, unregistered: 0 };
    for (const n of nodes)
      if (!provider.nodeGroupForNode(n)) {
        unmanaged.total++;
        if (isReady(n)) unmanaged.ready++;
        else unmanaged.notStarted++;
      }
    for (const group of provider.nodeGroups()) {
      const mine = nodes.filter((n) => provider.nodeGroupForNode(n) === group);
      const readyCount = mine.filter((n) => isReady(n) && !this.deleting.has(n.metadata.name ?? '')).length;
      const target = await group.targetSize();
      // Nodes asked for but not ready within --max-node-provision-time: the scale-up failed (logged, and
      // scale-down backs off as after a failure); kemu's cloud keeps the machine, which may still register.
      const asked = this.lastIncrease.get(group.id);
      if (target <= readyCount) this.lastIncrease.delete(group.id);
      else if (asked !== undefined && now - asked > this.o.maxNodeProvisionMs) {
        logger.warn({ group: group.id, target, ready: readyCount }, 'Scale-up timed out for node group');
        this.lastIncrease.delete(group.id);
        this.lastFailure = now;
      }
      views.push({ group, target, readyCount });
      statusGroups.push({
        name: group.id,
        minSize: group.minSize,
        maxSize: group.maxSize,
        target,
        counts: { total: mine.length, ready: readyCount, notStarted: mine.length - readyCount, unregistered: Math.max(0, target - mine.length) },
        candidates: 0,
      });
    }

    // Scale-up.
    let scaledUp = false;
    // Pods about to land (on ready or upcoming nodes): no node is removed under them this scan.
    let podsWaiting = false;
    const pending = pods.filter(isUnschedulable);
    const events: (() => void)[] = [];
    if (pending.length > 0) {
      const plan = planScaleUp(this.d.checker, {
        nodes: ready.filter((n) => !n.spec?.unschedulable),
        assigned: pods.filter(isAssigned),
        pending,
        groups: views,
        expanders: this.o.expanders,
        ...(this.d.random ? { random: this.d.random } : {}),
      });
      podsWaiting = plan.waiting.length > 0;
      if (plan.scaleUp && this.o.maxNodesTotal > 0) {
        const room = this.o.maxNodesTotal - nodes.length - views.reduce((n, v) => n + Math.max(0, v.target - v.readyCount), 0);
        plan.scaleUp.to = Math.min(plan.scaleUp.to, plan.scaleUp.from + Math.max(0, room));
        if (plan.scaleUp.to <= plan.scaleUp.from) delete plan.scaleUp;
      }
      if (plan.scaleUp) {
        const { group, from, to, pods: helped } = plan.scaleUp;
        logger.info({ group: group.id, from, to, max: group.maxSize, pods: helped.length }, 'Scale-up: setting group size');
        try {
          await group.increaseSize(to - from);
          scaledUp = true;
          this.lastScaleUp = now;
          this.lastIncrease.set(group.id, now);
          const view = statusGroups.find((g) => g.name === group.id);
          if (view) view.target = to;
          for (const p of helped) this.d.event(p, 'Normal', 'TriggeredScaleUp', triggeredMessage(group.id, from, to, group.maxSize));
          events.push(() => this.onStatus('Normal', 'ScaledUpGroup', `Scale-up: setting group ${group.id} size to ${to} instead of ${from} (max: ${group.maxSize})`));
          events.push(() => this.onStatus('Normal', 'ScaledUpGroup', `Scale-up: group ${group.id} size set to ${to} instead of ${from} (max: ${group.maxSize})`));
        } catch (e) {
          logger.warn({ group: group.id, err: (e as Error).message }, 'Failed to increase node group size');
          for (const p of helped) this.d.event(p, 'Warning', 'FailedToScaleUpGroup', `Scale-up failed for group ${group.id}: ${(e as Error).message}`);
        }
      }
      for (const n of plan.notTriggered) this.d.event(n.pod, 'Normal', 'NotTriggerScaleUp', n.message);
    }

    // Scale-down.
    if (this.o.scaleDownEnabled) {
      const targets = new Map(statusGroups.map((g) => [g.name, g.target]));
      const result = this.planner.update({
        now,
        nodes: ready,
        pods: pods.filter(isAssigned),
        groupOf: (n) => provider.nodeGroupForNode(n),
        targets,
        deleting: this.deleting,
      });
      for (const n of result.unneeded.keys()) {
        const node = ready.find((x) => x.metadata.name === n);
        const g = node ? provider.nodeGroupForNode(node) : undefined;
        const view = statusGroups.find((s) => s.name === g?.id);
        if (view) view.candidates++;
      }
      const cooldown =
        scaledUp ||
        podsWaiting ||
        now - this.lastScaleUp < this.o.delayAfterAddMs ||
        now - this.lastDelete < this.o.delayAfterDeleteMs ||
        now - this.lastFailure < this.o.delayAfterFailureMs ||
        this.deleting.size > 0;
      if (!cooldown && result.removable.length > 0) {
        const empty = result.removable.filter((r) => r.pods.length === 0).slice(0, this.o.maxEmptyBulkDelete);
        const chosen = empty.length > 0 ? empty : result.removable.slice(0, 1);
        for (const r of chosen) this.startRemoval(r.node, r.group, r.pods);
      }
    }

    const text = statusText(now, statusGroups, unmanaged, this.transitions);
    try {
      this.statusObject = (await this.d.writeStatus(text)) ?? this.statusObject;
    } catch (e) {
      logger.warn({ err: (e as Error).message }, 'Failed to write status configmap');
    }
    for (const e of events) e();
  }

  private onStatus(type: 'Normal' | 'Warning', reason: string, message: string): void {
    if (this.statusObject) this.d.event(this.statusObject, type, reason, message);
  }

  private startRemoval(node: Node, group: Parameters<typeof removeNode>[1], pods: Pod[]): void {
    const name = node.metadata.name ?? '';
    this.deleting.add(name);
    this.d.logger.info({ node: name, group: group.id, pods: pods.length }, 'Scale-down: removing node');
    const run = removeNode(node, group, pods, this.d.actuator, {
      clock: this.d.clock,
      maxPodEvictionMs: this.o.maxPodEvictionMs,
      evictionRetryMs: this.o.evictionRetryMs,
      podsGoneTimeoutMs: this.o.maxGracefulTerminationSec * 1000 + 30_000,
    })
      .then((r) => {
        if (r.removed) {
          this.lastDelete = this.d.clock.now();
          this.planner.reset(name);
          this.onStatus('Normal', 'ScaleDown', pods.length ? `Scale-down: node ${name} removed with drain` : `Scale-down: empty node ${name} removed`);
        } else {
          this.lastFailure = this.d.clock.now();
          this.d.logger.warn({ node: name, err: r.error }, 'Scale-down: node removal failed');
        }
      })
      .catch((e: unknown) => this.d.logger.error({ node: name, err: String(e) }, 'Scale-down: node removal failed'))
      .finally(() => {
        this.deleting.delete(name);
        this.drains.delete(run);
      });
    this.drains.add(run);
  }
}
