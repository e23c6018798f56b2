// The scheduling queue (PriorityQueue): activeQ is a heap in QueueSort order; backoffQ holds pods waiting out
// their per-attempt backoff (initial doubling to max); unschedulablePods holds pods that failed until a
// cluster event that may help moves them (or podMaxInUnschedulablePodsDuration passes). Pods are
// de-duplicated by namespace/name; a pod being scheduled is "in flight" and never queued twice.
import type { Pod } from '@kemu/api';
import type { Clock } from '@kemu/base';
import { PodInfo } from '@kemu/scheduler-framework';
import type { Nominator, QueuedPodInfo, MaybeStatus } from '@kemu/scheduler-framework';
import { ClusterEvent, eventMayHelp } from './events.ts';
import { KeyedHeap } from './heap.ts';

export const DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION_MS = 5 * 60_000;
const UNSCHEDULABLE_FLUSH_INTERVAL_MS = 30_000;

export interface SchedulingQueueOptions {
  less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  clock: Clock;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  maxInUnschedulableMs?: number;
  /** PreEnqueue plugins of the pod's profile; a rejection parks the pod as gated. */
  preEnqueue?: (pod: PodInfo) => MaybeStatus;
}

const keyOf = (q: QueuedPodInfo) => q.podInfo.key;

export class SchedulingQueue implements Nominator {
  private readonly activeQ: KeyedHeap<QueuedPodInfo>;
  private readonly backoffQ: KeyedHeap<QueuedPodInfo>;
  private readonly unschedulable = new Map<string, QueuedPodInfo>();
  /** Popped and being scheduled; the latest object seen for each. */
  private readonly inFlight = new Map<string, QueuedPodInfo>();
  private readonly gated = new Map<string, QueuedPodInfo>();
  private readonly waiters: ((q: QueuedPodInfo | undefined) => void)[] = [];
  private cycle = 0;
  private moveRequestCycle = -1;
  private closed = false;
  private backoffTimer: NodeJS.Timeout | undefined;
  private backoffTimerAt = Infinity;
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxInUnschedulableMs: number;
  // Nominator state.
  private readonly nominatedByNode = new Map<string, PodInfo[]>();
  private readonly nominatedNodeOf = new Map<string, string>();

  constructor(private readonly opts: SchedulingQueueOptions) {
    this.activeQ = new KeyedHeap(keyOf, opts.less);
    this.backoffQ = new KeyedHeap(keyOf, (a, b) => this.backoffExpiry(a) < this.backoffExpiry(b));
    this.initialBackoffMs = opts.initialBackoffMs ?? 1000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 10_000;
    this.maxInUnschedulableMs = opts.maxInUnschedulableMs ?? DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION_MS;
  }

  /** Starts the periodic flush of long-unschedulable pods. */
  run(): void {
    this.flushTimer = setInterval(() => this.flushUnschedulableLeftover(), UNSCHEDULABLE_FLUSH_INTERVAL_MS);
    this.flushTimer.unref?.();
  }

  close(): void {
    this.closed = true;
    if (this.flushTimer) clearInterval(this.flushTimer);
    if (this.backoffTimer) clearTimeout(this.backoffTimer);
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  schedulingCycle(): number {
    return this.cycle;
  }

  private newQueued(pod: Pod): QueuedPodInfo {
    const now = this.opts.clock.now();
    return { podInfo: new PodInfo(pod), timestamp: now, initialAttemptTimestamp: now, attempts: 0, unschedulablePlugins: new Set() };
  }

  has(key: string): boolean {
    return this.activeQ.has(key) || this.backoffQ.has(key) || this.unschedulable.has(key) || this.inFlight.has(key) || this.gated.has(key);
  }

  /** A new pending pod. */
  add(pod: Pod): void {
    const q = this.newQueued(pod);
    const key = q.podInfo.key;
    if (this.has(key)) {
      this.update(pod);
      return;
    }
    this.addNominatedFromStatus(q.podInfo);
    this.toActive(q);
  }

  private toActive(q: QueuedPodInfo): void {
    const gate = this.opts.preEnqueue?.(q.podInfo);
    if (gate && !gate.isSuccess()) {
      this.gated.set(q.podInfo.key, q);
      return;
    }
    this.gated.delete(q.podInfo.key);
    this.activeQ.push(q);
    this.wake();
  }

  private wake(): void {
    while (this.waiters.length && this.activeQ.size) {
      const w = this.waiters.shift() as (q: QueuedPodInfo | undefined) => void;
      w(this.popNow());
    }
  }

  private popNow(): QueuedPodInfo | undefined {
    const q = this.activeQ.pop();
    if (!q) return undefined;
    q.attempts++;
    this.cycle++;
    this.inFlight.set(q.podInfo.key, q);
    return q;
  }

  /** The next pod to schedule; waits while the active queue is empty. Undefined after close(). */
  pop(): Promise<QueuedPodInfo | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const q = this.popNow();
    if (q) return Promise.resolve(q);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The pod left the scheduling cycle (bound, requeued or dropped). */
  done(key: string): void {
    this.inFlight.delete(key);
  }

  /** Latest version of an in-flight pod (updates that arrived while it was being scheduled). */
  inFlightPod(key: string): QueuedPodInfo | undefined {
    return this.inFlight.get(key);
  }

  /** Pod failed its cycle: back to backoffQ (a move happened meanwhile, or an error) or unschedulablePods. */
  addUnschedulableIfNotPresent(q: QueuedPodInfo, podSchedulingCycle: number): void {
    const key = q.podInfo.key;
    const latest = this.inFlight.get(key) ?? q;
    this.inFlight.delete(key);
    if (this.activeQ.has(key) || this.backoffQ.has(key) || this.unschedulable.has(key)) return;
    latest.timestamp = this.opts.clock.now();
    latest.attempts = q.attempts;
    latest.unschedulablePlugins = q.unschedulablePlugins;
    if (this.moveRequestCycle >= podSchedulingCycle || latest.unschedulablePlugins.size === 0) this.toBackoff(latest);
    else this.unschedulable.set(key, latest);
  }

  private backoffDuration(q: QueuedPodInfo): number {
    let d = this.initialBackoffMs;
    for (let i = 1; i < q.attempts; i++) {
      d *= 2;
      if (d >= this.maxBackoffMs) return this.maxBackoffMs;
    }
    return Math.min(d, this.maxBackoffMs);
  }
  private backoffExpiry(q: QueuedPodInfo): number {
    return q.timestamp + this.backoffDuration(q);
  }
  private isBackingOff(q: QueuedPodInfo): boolean {
    return this.backoffExpiry(q) > this.opts.clock.now();
  }

  private toBackoff(q: QueuedPodInfo): void {
    this.backoffQ.push(q);
    this.armBackoffTimer();
  }

  private armBackoffTimer(): void {
    const head = this.backoffQ.peek();
    if (!head || this.closed) return;
    const at = this.backoffExpiry(head);
    if (this.backoffTimer && at >= this.backoffTimerAt) return;
    if (this.backoffTimer) clearTimeout(this.backoffTimer);
    this.backoffTimerAt = at;
    this.backoffTimer = setTimeout(() => {
      this.backoffTimer = undefined;
      this.backoffTimerAt = Infinity;
      this.flushBackoffQCompleted();
    }, Math.max(0, at - this.opts.clock.now()));
    this.backoffTimer.unref?.();
  }

  /** Moves pods whose backoff has expired to activeQ. */
  flushBackoffQCompleted(): void {
    const now = this.opts.clock.now();
    for (;;) {
      const head = this.backoffQ.peek();
      if (!head || this.backoffExpiry(head) > now) break;
      this.backoffQ.pop();
      this.toActive(head);
    }
    this.armBackoffTimer();
  }

  /** Pods unschedulable for longer than podMaxInUnschedulablePodsDuration get another try. */
  flushUnschedulableLeftover(): void {
    const now = this.opts.clock.now();
    const due = [...this.unschedulable.values()].filter((q) => now - q.timestamp > this.maxInUnschedulableMs);
    this.movePods(due, ClusterEvent.UnschedulableTimeout);
  }

  /** A cluster event that may make unschedulable pods schedulable. */
  moveAllToActiveOrBackoffQueue(event: ClusterEvent, filter?: (q: QueuedPodInfo) => boolean): void {
    const list: QueuedPodInfo[] = [];
    for (const q of this.unschedulable.values()) if ((!filter || filter(q)) && eventMayHelp(event, q.unschedulablePlugins)) list.push(q);
    this.movePods(list, event);
    // Pods in flight right now failed against the old state; send them to backoff, not unschedulable.
    this.moveRequestCycle = this.cycle;
  }

  private movePods(list: QueuedPodInfo[], _event: ClusterEvent): void {
    for (const q of list) {
      this.unschedulable.delete(q.podInfo.key);
      if (this.isBackingOff(q)) this.toBackoff(q);
      else this.toActive(q);
    }
  }

  /** A pending pod changed. */
  update(pod: Pod): void {
    const info = new PodInfo(pod);
    const key = info.key;
    const replace = (q: QueuedPodInfo): QueuedPodInfo => ({ ...q, podInfo: info });
    this.addNominatedFromStatus(info);
    const fl = this.inFlight.get(key);
    if (fl) {
      this.inFlight.set(key, replace(fl));
      return;
    }
    const a = this.activeQ.get(key);
    if (a) {
      this.activeQ.push(replace(a));
      return;
    }
    const b = this.backoffQ.get(key);
    if (b) {
      this.backoffQ.push(replace(b));
      return;
    }
    const g = this.gated.get(key);
    if (g) {
      this.gated.delete(key);
      this.toActive(replace(g));
      return;
    }
    const u = this.unschedulable.get(key);
    if (u) {
      const q = replace(u);
      if (specChanged(u.podInfo.pod, pod)) {
        this.unschedulable.delete(key);
        if (this.isBackingOff(q)) this.toBackoff(q);
        else this.toActive(q);
      } else this.unschedulable.set(key, q);
      return;
    }
    this.toActive(this.newQueued(pod));
  }

  delete(key: string): void {
    this.activeQ.delete(key);
    this.backoffQ.delete(key);
    this.unschedulable.delete(key);
    this.gated.delete(key);
    this.inFlight.delete(key);
    this.removeNominated(key);
  }

  /** Re-activates specific pods now (e.g. a pod whose bind failed with a conflict that needs a retry). */
  activate(keys: string[]): void {
    for (const k of keys) {
      const q = this.unschedulable.get(k) ?? this.backoffQ.get(k);
      if (!q) continue;
      this.unschedulable.delete(k);
      this.backoffQ.delete(k);
      this.toActive(q);
    }
  }

  pendingCounts(): { active: number; backoff: number; unschedulable: number; gated: number } {
    return { active: this.activeQ.size, backoff: this.backoffQ.size, unschedulable: this.unschedulable.size, gated: this.gated.size };
  }

  // --- Nominator ---
  private addNominatedFromStatus(info: PodInfo): void {
    const n = info.pod.status?.nominatedNodeName;
    if (n) this.addNominatedPod(info, n);
    else if (this.nominatedNodeOf.has(info.key)) this.removeNominated(info.key);
  }
  hasNominatedPods(): boolean {
    return this.nominatedNodeOf.size > 0;
  }
  nominatedPodsForNode(nodeName: string): readonly PodInfo[] {
    return this.nominatedByNode.get(nodeName) ?? EMPTY;
  }
  addNominatedPod(pod: PodInfo, nodeName: string): void {
    this.removeNominated(pod.key);
    this.nominatedNodeOf.set(pod.key, nodeName);
    const l = this.nominatedByNode.get(nodeName) ?? [];
    l.push(pod);
    this.nominatedByNode.set(nodeName, l);
  }
  deleteNominatedPod(pod: PodInfo): void {
    this.removeNominated(pod.key);
  }
  private removeNominated(key: string): void {
    const n = this.nominatedNodeOf.get(key);
    if (n === undefined) return;
    this.nominatedNodeOf.delete(key);
    const l = (this.nominatedByNode.get(n) ?? []).filter((p) => p.key !== key);
    if (l.length) this.nominatedByNode.set(n, l);
    else this.nominatedByNode.delete(n);
  }
}

const EMPTY: readonly PodInfo[] = [];

/** isPodUpdated: a change other than resourceVersion/generation/managedFields/status. */
function specChanged(a: Pod, b: Pod): boolean {
  const strip = (p: Pod) =>
    JSON.stringify({ spec: p.spec, labels: p.metadata.labels, annotations: p.metadata.annotations, finalizers: p.metadata.finalizers });
  return strip(a) !== strip(b);
}
