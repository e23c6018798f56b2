// The scheduler loop: pops one pod at a time, runs its profile synchronously against the cache, assumes the
// result and binds asynchronously (so the next pod starts at once), and records failures the way Kubernetes
// does (PodScheduled=False condition, FailedScheduling event, requeue with backoff). Informer handlers feed
// the cache and the queue; this file never talks to the network except through SchedulerClient.
import type { Condition, Node, Pod } from '@kemu/api';
import { StatusError, formatTime } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import { ScheduleAlgorithm, SchedulerCache, podKey, CycleState, NO_NODES_AVAILABLE, type FitError, PodInfo, type NamespaceLabels, Framework, Code, type MaybeStatus, inTreeRegistry } from '@kemu/scheduler-framework';
import type { KubeSchedulerConfiguration, QueuedPodInfo, SchedulerClient, SelectorLister, VolumeLister, Registry } from '@kemu/scheduler-framework';
import type { SchedulerMetrics } from './metrics.ts';
import { ClusterEvent } from './queue/events.ts';
import { SchedulingQueue } from './queue/scheduling-queue.ts';

export type EventFn = (pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string, schedulerName: string) => void;

export interface SchedulerOptions {
  config: KubeSchedulerConfiguration;
  client: SchedulerClient;
  event: EventFn;
  clock: Clock;
  logger: Logger;
  registry?: Registry;
  selectorLister?: SelectorLister;
  volumeLister?: VolumeLister;
  namespaceLabels?: NamespaceLabels;
  metrics?: SchedulerMetrics;
  /** Looks up the informer's current copy of a pod (to skip requeueing pods bound or deleted meanwhile). */
  currentPod?: (key: string) => Pod | undefined;
  random?: () => number;
  /** podMaxInUnschedulablePodsDuration (default 5 minutes). */
  maxInUnschedulableMs?: number;
}

const isAssigned = (p: Pod) => !!p.spec.nodeName;
const isTerminated = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

export class Scheduler {
  readonly cache = new SchedulerCache();
  readonly queue: SchedulingQueue;
  readonly profiles = new Map<string, Framework>();
  private readonly algorithm: ScheduleAlgorithm;
  private readonly log: Logger;
  private bindsInFlight = 0;

  constructor(private readonly o: SchedulerOptions) {
    this.log = o.logger;
    const registry = o.registry ?? inTreeRegistry();
    let queueRef: SchedulingQueue | undefined;
    const nominator = {
      nominatedPodsForNode: (n: string) => queueRef?.nominatedPodsForNode(n) ?? [],
      hasNominatedPods: () => queueRef?.hasNominatedPods() ?? false,
      addNominatedPod: (p: PodInfo, n: string) => queueRef?.addNominatedPod(p, n),
      deleteNominatedPod: (p: PodInfo) => queueRef?.deleteNominatedPod(p),
    };
    for (const profile of o.config.profiles) {
      const fwk = new Framework(registry, profile, {
        snapshot: () => this.cache,
        client: o.client,
        clock: o.clock,
        logger: o.logger,
        nominator,
        selectorLister: o.selectorLister,
        volumeLister: o.volumeLister,
        namespaceLabels: o.namespaceLabels,
        event: (pod, type, reason, message) => o.event(pod, type, reason, message, profile.schedulerName),
      });
      this.profiles.set(profile.schedulerName, fwk);
    }
    const first = this.profiles.values().next().value as Framework;
    this.queue = new SchedulingQueue({
      less: first.less,
      clock: o.clock,
      initialBackoffMs: o.config.podInitialBackoffSeconds * 1000,
      maxBackoffMs: o.config.podMaxBackoffSeconds * 1000,
      ...(o.maxInUnschedulableMs !== undefined ? { maxInUnschedulableMs: o.maxInUnschedulableMs } : {}),
      preEnqueue: (p) => this.profileFor(p.pod)?.runPreEnqueuePlugins(p) ?? null,
    });
    queueRef = this.queue;
    this.algorithm = new ScheduleAlgorithm(o.config.percentageOfNodesToScore, this.queue, o.random);
  }

  private profileFor(pod: Pod): Framework | undefined {
    return this.profiles.get(pod.spec.schedulerName || 'default-scheduler');
  }
  responsibleFor(pod: Pod): boolean {
    return this.profileFor(pod) !== undefined;
  }

  // ---- informer handlers ----
  addPod(pod: Pod): void {
    if (isAssigned(pod)) {
      this.cache.addOrUpdatePod(pod);
      // Created already bound (or bound elsewhere): not ours to schedule, and no longer nominated.
      this.queue.delete(podKey(pod));
      this.queue.moveAllToActiveOrBackoffQueue(ClusterEvent.AssignedPodAdd);
      return;
    }
    if (isTerminated(pod) || !this.responsibleFor(pod) || pod.metadata.deletionTimestamp) return;
    this.queue.add(pod);
  }

  updatePod(oldPod: Pod, pod: Pod): void {
    const key = podKey(pod);
    if (isAssigned(pod)) {
      if (!isAssigned(oldPod)) this.queue.delete(key);
      this.cache.addOrUpdatePod(pod);
      if (isTerminated(pod)) {
        this.cache.removePod(key);
        this.queue.moveAllToActiveOrBackoffQueue(ClusterEvent.AssignedPodDelete);
      } else if (!isAssigned(oldPod)) this.queue.moveAllToActiveOrBackoffQueue(ClusterEvent.AssignedPodAdd);
      // Status-only updates (the kubelet's) cannot make another pod schedulable; label or request changes can.
      else if (assignedPodChangeMatters(oldPod, pod)) this.queue.moveAllToActiveOrBackoffQueue(ClusterEvent.AssignedPodUpdate);
      return;
    }
    if (this.cache.isAssumed(key)) return;
    if (isTerminated(pod) || !this.responsibleFor(pod)) {
      this.queue.delete(key);
      return;
    }
    this.queue.update(pod);
  }

  deletePod(pod: Pod): void {
    const key = podKey(pod);
    if (isAssigned(pod) || this.cache.has(key)) {
      this.cache.removePod(key);
      this.queue.moveAllToActiveOrBackoffQueue(ClusterEvent.AssignedPodDelete);
    }
    this.queue.delete(key);
  }

  /** A claim, volume, class or CSINode appeared or changed: pods the volume plugins turned away may fit now. */
  storageChanged(event: 'PvcAdd' | 'PvcUpdate' | 'PvAdd' | 'PvUpdate' | 'StorageClassAdd' | 'CSINodeAdd' | 'CSINodeUpdate'): void {
    this.queue.moveAllToActiveOrBackoffQueue(ClusterEvent[event]);
  }

  addNode(node: Node): void {
    this.cache.addNode(node);
    this.queue.moveAllToActiveOrBackoffQueue(ClusterEvent.NodeAdd);
  }

  updateNode(oldNode: Node, node: Node): void {
    this.cache.updateNode(node);
    if (nodeSchedulingPropertiesChanged(oldNode, node)) this.queue.moveAllToActiveOrBackoffQueue(ClusterEvent.NodeUpdate);
  }

  deleteNode(node: Node): void {
    this.cache.removeNode(node.metadata.name ?? '');
  }

  // ---- the loop ----
  async run(signal: AbortSignal): Promise<void> {
    this.queue.run();
    signal.addEventListener('abort', () => this.queue.close(), { once: true });
    while (!signal.aborted) {
      const q = await this.queue.pop();
      if (!q || signal.aborted) break;
      try {
        await this.scheduleOne(q);
      } catch (e) {
        this.log.error({ err: String(e), pod: q.podInfo.key }, 'scheduling cycle failed unexpectedly');
        this.queue.addUnschedulableIfNotPresent(q, this.queue.schedulingCycle());
      }
      // Let informer events and bind responses in.
      await new Promise<void>((r) => setImmediate(r));
    }
  }

  /** One scheduling cycle for a popped pod (exposed for tests). */
  async scheduleOne(q: QueuedPodInfo): Promise<void> {
    const key = q.podInfo.key;
    const latest = this.queue.inFlightPod(key) ?? q;
    const pod = latest.podInfo.pod;
    const fwk = this.profileFor(pod);
    if (!fwk || pod.metadata.deletionTimestamp || this.cache.has(key)) {
      this.queue.done(key);
      return;
    }
    const cycle = this.queue.schedulingCycle();
    const state = new CycleState();
    const start = this.o.clock.now();
    const result = this.algorithm.schedulePod(fwk, state, latest.podInfo, this.cache);
    if (result.kind === 'scheduled') {
      const assumed = new PodInfo({ ...pod, spec: { ...pod.spec, nodeName: result.node } });
      this.cache.assumePod(assumed, result.node);
      this.queue.deleteNominatedPod(latest.podInfo);
      let s: MaybeStatus = fwk.runReservePlugins(state, assumed, result.node);
      if (!s || s.isSuccess()) s = fwk.runPermitPlugins(state, assumed, result.node);
      if (s && !s.isSuccess()) {
        fwk.runUnreservePlugins(state, assumed, result.node);
        this.cache.forgetPod(key);
        this.observe(fwk, 'error', start);
        await this.handleFailure(fwk, latest, cycle, new Error(s.message()), 'SchedulerError', undefined);
        return;
      }
      this.bindsInFlight++;
      void this.bindingCycle(fwk, state, latest, assumed, result.node, start, cycle).finally(() => this.bindsInFlight--);
      return;
    }
    if (result.kind === 'error') {
      // An empty cluster is "unschedulable" (UnschedulableAndUnresolvable in Kubernetes), not an error.
      const noNodes = result.error.message === NO_NODES_AVAILABLE;
      this.observe(fwk, noNodes ? 'unschedulable' : 'error', start);
      latest.unschedulablePlugins = new Set();
      await this.handleFailure(fwk, latest, cycle, result.error, noNodes ? 'Unschedulable' : 'SchedulerError', noNodes ? '' : undefined);
      return;
    }
    const fitError = result.fitError;
    let nominated: string | undefined;
    if (fwk.postFilterPlugins.length > 0) {
      const pf = await fwk.runPostFilterPlugins(state, latest.podInfo, fitError.diagnosis.nodeToStatus);
      if (pf.status && !pf.status.isSuccess()) {
        if (pf.status.code === Code.Error) this.log.warn({ pod: key, err: pf.status.message() }, 'PostFilter failed');
        else fitError.diagnosis.postFilterMsg = pf.status.message();
      }
      nominated = pf.result?.nominatedNodeName;
    }
    this.observe(fwk, 'unschedulable', start);
    latest.unschedulablePlugins = new Set(fitError.diagnosis.unschedulablePlugins);
    await this.handleFailure(fwk, latest, cycle, fitError, 'Unschedulable', nominated);
  }

  private observe(fwk: Framework, result: 'scheduled' | 'unschedulable' | 'error', start: number): void {
    const m = this.o.metrics;
    if (!m) return;
    m.attempts.inc({ result, profile: fwk.profileName });
    m.attemptDuration.observe({ result, profile: fwk.profileName }, (this.o.clock.now() - start) / 1000);
  }

  private async bindingCycle(
    fwk: Framework,
    state: CycleState,
    q: QueuedPodInfo,
    assumed: PodInfo,
    node: string,
    start: number,
    cycle: number,
  ): Promise<void> {
    const key = assumed.key;
    let s = await fwk.runPreBindPlugins(state, assumed, node);
    if (!s || s.isSuccess()) s = await fwk.runBindPlugins(state, assumed, node);
    if (s && !s.isSuccess()) {
      fwk.runUnreservePlugins(state, assumed, node);
      this.cache.forgetPod(key);
      this.observe(fwk, 'error', start);
      const err = s.error;
      if (err instanceof StatusError && (err.code === 409 || err.code === 404)) {
        // Someone else bound the pod (or it is gone): forget it; the informer brings the truth.
        this.log.info({ pod: key, node, code: err.code, err: err.message }, 'binding rejected; not retrying');
        this.queue.done(key);
        this.queue.moveAllToActiveOrBackoffQueue(ClusterEvent.AssignedPodDelete);
        return;
      }
      await this.handleFailure(fwk, q, cycle, err ?? new Error(s.message()), 'SchedulerError', undefined);
      return;
    }
    this.cache.finishBinding(key, this.o.clock.now());
    this.queue.done(key);
    fwk.runPostBindPlugins(state, assumed, node);
    this.observe(fwk, 'scheduled', start);
    this.o.metrics?.sliDuration.observe({ attempts: String(q.attempts) }, (this.o.clock.now() - q.initialAttemptTimestamp) / 1000);
    this.o.event(q.podInfo.pod, 'Normal', 'Scheduled', `Successfully assigned ${key} to ${node}`, fwk.profileName);
  }

  private async handleFailure(
    fwk: Framework,
    q: QueuedPodInfo,
    cycle: number,
    err: Error | FitError,
    reason: 'Unschedulable' | 'SchedulerError',
    nominatedNodeName: string | undefined,
  ): Promise<void> {
    const key = q.podInfo.key;
    const pod = q.podInfo.pod;
    const current = this.o.currentPod ? this.o.currentPod(key) : pod;
    if (!current || isAssigned(current) || current.metadata.deletionTimestamp) {
      // Deleted or bound by someone else while we were deciding.
      this.queue.done(key);
      return;
    }
    this.queue.addUnschedulableIfNotPresent(q, cycle);
    if (nominatedNodeName) this.queue.addNominatedPod(q.podInfo, nominatedNodeName);
    else if (nominatedNodeName === '') this.queue.deleteNominatedPod(q.podInfo);
    const msg = err.message;
    this.log.debug({ pod: key, reason, message: msg }, 'unable to schedule pod');
    this.o.event(current, 'Warning', 'FailedScheduling', msg, fwk.profileName);
    const cond: Condition = { type: 'PodScheduled', status: 'False', reason, message: msg, lastProbeTime: null };
    const existing = (current.status?.conditions ?? []).find((c) => c.type === 'PodScheduled');
    const oldNNN = current.status?.nominatedNodeName ?? '';
    const nnnChanged = nominatedNodeName !== undefined && nominatedNodeName !== oldNNN;
    if (existing && existing.status === 'False' && existing.reason === reason && existing.message === msg && !nnnChanged) return;
    const conditions = [
      ...(current.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled'),
      { ...cond, lastTransitionTime: existing?.status === 'False' ? existing.lastTransitionTime : formatTime(this.o.clock.now()) },
    ];
    const patch: Record<string, unknown> = { conditions };
    if (nnnChanged) patch.nominatedNodeName = nominatedNodeName === '' ? null : nominatedNodeName;
    // Not awaited: a slow status write must not stall the scheduling loop.
    void this.o.client.patchPodStatus(current, patch).catch((e: unknown) => this.log.debug({ pod: key, err: String(e) }, 'failed to update pod status'));
  }

  pendingBinds(): number {
    return this.bindsInFlight;
  }
}

function assignedPodChangeMatters(a: Pod, b: Pod): boolean {
  if (JSON.stringify(a.metadata.labels) !== JSON.stringify(b.metadata.labels)) return true;
  const req = (p: Pod) => JSON.stringify(p.spec.containers?.map((c) => c.resources?.requests));
  return req(a) !== req(b);
}

/** Changes that can make pods schedulable (not heartbeats or condition timestamps). */
export function nodeSchedulingPropertiesChanged(a: Node, b: Node): boolean {
  if (JSON.stringify(a.status?.allocatable) !== JSON.stringify(b.status?.allocatable)) return true;
  if (JSON.stringify(a.metadata.labels) !== JSON.stringify(b.metadata.labels)) return true;
  if (JSON.stringify(a.spec?.taints) !== JSON.stringify(b.spec?.taints)) return true;
  if (!!a.spec?.unschedulable !== !!b.spec?.unschedulable) return true;
  if (JSON.stringify(a.status?.images) !== JSON.stringify(b.status?.images)) return true;
  return false;
}
