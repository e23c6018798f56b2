// replicaset-controller and replicationcontroller-controller: keeps spec.replicas active pods for every
// ReplicaSet (or ReplicationController: the same controller over another kind, as Kubernetes runs it). Expectations stop it from acting
// twice on a cache that has not caught up with its own creates/deletes; creations go out in slow-start
// batches; surplus pods are deleted in ActivePodsWithRanks order; orphans that match are adopted and pods
// that stop matching are released; status is written through the /status subresource.
import {
  R,
  formatTime,
  labelSelectorAsSelector,
  selectorMatches,
  type Condition,
  type Pod,
  type ReplicaSet,
  type ReplicaSetStatus,
  type ParsedSelector,
  type ResourceInfo,
  selectorFromSet,
} from '@kemu/api';
import { isNotFound, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';
import { Expectations } from './expectations.ts';
import { PodControl, SLOW_START_INITIAL_BATCH, controllerRef, definitelyNotApplied, slowStartBatch } from './podcontrol.ts';
import { claimCandidates, ensureControllerIndex, getControllerOf, isPodActive, isPodAvailable, isPodReady, podsToDelete } from './pods.ts';
import { claimObjects, recheckOwner } from './refmanager.ts';

/** At most this many creations or deletions per sync (Kubernetes' BurstReplicas). */
export const BURST_REPLICAS = 500;
/** How long to wait for the informer to report a pod whose create (or delete) request had an unknown outcome. */
export const AMBIGUOUS_CREATE_WAIT_MS = 15_000;

function key(ns: string | undefined, name: string | undefined): string {
  return `${ns ?? ''}/${name ?? ''}`;
}

/** A ReplicaSet's selector; an empty or invalid selector selects nothing (as Kubernetes refuses to act on it). */
export function rsSelector(rs: ReplicaSet): ParsedSelector | undefined {
  try {
    const sel = labelSelectorAsSelector(rs.spec.selector);
    return sel.nothing || sel.requirements.length === 0 ? undefined : sel;
  } catch {
    return undefined;
  }
}

/** A ReplicationController's label-map selector; an empty one selects nothing. */
function rcSelector(rc: ReplicaSet): ParsedSelector | undefined {
  const set = rc.spec.selector as unknown as Record<string, string> | undefined;
  return set && Object.keys(set).length > 0 ? selectorFromSet(set) : undefined;
}

/**
 * The kind a replica controller keeps pods for. A ReplicationController has a ReplicaSet's spec and status but
 * for its selector (a label map), so it runs through the same controller, read through `selector`.
 */
export interface ReplicaKind {
  controllerName: string;
  resource: ResourceInfo;
  apiVersion: string;
  kind: string;
  /** The --concurrent-*-syncs flag that sets the workers. */
  workersFlag: 'concurrent-replicaset-syncs' | 'concurrent-rc-syncs';
  selector(owner: ReplicaSet): ParsedSelector | undefined;
}

export const REPLICA_SET_KIND: ReplicaKind = {
  controllerName: 'replicaset-controller',
  resource: R.replicasets,
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  workersFlag: 'concurrent-replicaset-syncs',
  selector: rsSelector,
};

export const REPLICATION_CONTROLLER_KIND: ReplicaKind = {
  controllerName: 'replicationcontroller-controller',
  resource: R.replicationcontrollers,
  apiVersion: 'v1',
  kind: 'ReplicationController',
  workersFlag: 'concurrent-rc-syncs',
  selector: rcSelector,
};

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

export class ReplicaSetController implements Controller {
  readonly name: string;
  readonly expectations: Expectations;
  private readonly rsInformer: SharedInformer<ReplicaSet>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly worker: KeyedWorker;
  private readonly podControl: PodControl;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly kind: ReplicaKind = REPLICA_SET_KIND,
  ) {
    this.name = kind.controllerName;
    this.expectations = new Expectations(ctx.clock);
    this.podControl = new PodControl(ctx.client, ctx.recorder);
    this.rsInformer = ctx.informers.informerFor<ReplicaSet>(kind.resource);
    this.podInformer = ctx.informers.informerFor<Pod>(R.pods);
    ensureControllerIndex(this.podInformer);
    this.worker = new KeyedWorker(ctx, {
      name: this.name,
      workers: ctx.options[kind.workersFlag],
      sync: (k) => this.sync(k),
    }).waitFor(this.rsInformer, this.podInformer);

    this.rsInformer.addEventHandler({
      onAdd: (rs) => this.worker.enqueue(rs),
      onUpdate: (_old, rs) => this.worker.enqueue(rs),
      onDelete: (obj) => {
        const rs = unwrapDeleted(obj);
        this.expectations.delete(key(rs.metadata.namespace, rs.metadata.name));
        this.worker.enqueue(obj);
      },
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.podAdded(pod),
      onUpdate: (old, pod) => this.podUpdated(old, pod),
      onDelete: (obj) => this.podDeleted(unwrapDeleted(obj)),
    });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  /** The ReplicaSet a controllerRef names, if it is in the cache with that uid. */
  private resolveRef(ns: string | undefined, ref: { kind: string; apiVersion: string; name: string; uid: string } | undefined) {
    if (!ref || ref.kind !== this.kind.kind || groupOf(ref.apiVersion) !== this.kind.resource.group) return undefined;
    const rs = this.rsInformer.store.get(key(ns, ref.name));
    return rs && rs.metadata.uid === ref.uid ? rs : undefined;
  }

  /** ReplicaSets in the pod's namespace whose selector matches it (candidates to adopt an orphan). */
  private matchingReplicaSets(pod: Pod): ReplicaSet[] {
    return this.rsInformer.store
      .byIndex('namespace', pod.metadata.namespace ?? '')
      .filter((rs) => {
        const sel = this.kind.selector(rs);
        return sel !== undefined && selectorMatches(sel, pod.metadata.labels);
      });
  }

  private podAdded(pod: Pod): void {
    if (pod.metadata.deletionTimestamp) {
      // Restarted with a pod already being deleted: treat it as a deletion so expectations do not wait for it.
      this.podDeleted(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      const rs = this.resolveRef(pod.metadata.namespace, ref);
      if (!rs) return;
      const k = key(rs.metadata.namespace, rs.metadata.name);
      this.expectations.creationObserved(k);
      this.worker.add(k);
      return;
    }
    for (const rs of this.matchingReplicaSets(pod)) this.worker.enqueue(rs);
  }

  private podUpdated(old: Pod, pod: Pod): void {
    if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return;
    const labelsChanged = JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(pod.metadata.labels ?? {});
    if (pod.metadata.deletionTimestamp) {
      this.podDeleted(pod);
      if (labelsChanged) this.podDeleted(old);
      return;
    }
    const oldRef = getControllerOf(old);
    const ref = getControllerOf(pod);
    const refChanged = oldRef?.uid !== ref?.uid;
    if (refChanged && oldRef) {
      const oldRs = this.resolveRef(old.metadata.namespace, oldRef);
      if (oldRs) this.worker.enqueue(oldRs);
    }
    if (ref) {
      const rs = this.resolveRef(pod.metadata.namespace, ref);
      if (!rs) return;
      this.worker.enqueue(rs);
      // A pod that just became ready becomes available minReadySeconds later: look again then.
      const minReady = rs.spec.minReadySeconds ?? 0;
      if (minReady > 0 && !isPodReady(old) && isPodReady(pod)) this.worker.addAfter(key(rs.metadata.namespace, rs.metadata.name), minReady * 1000 + 1000);
      return;
    }
    if (labelsChanged || refChanged) for (const rs of this.matchingReplicaSets(pod)) this.worker.enqueue(rs);
  }

  private podDeleted(pod: Pod): void {
    const rs = this.resolveRef(pod.metadata.namespace, getControllerOf(pod));
    if (!rs) return;
    const k = key(rs.metadata.namespace, rs.metadata.name);
    this.expectations.deletionObserved(k, key(pod.metadata.namespace, pod.metadata.name));
    this.worker.add(k);
  }

  async sync(rsKey: string): Promise<void> {
    const cached = this.rsInformer.store.get(rsKey);
    if (!cached) {
      this.expectations.delete(rsKey);
      return;
    }
    const rs = structuredClone(cached);
    const needsSync = this.expectations.satisfied(rsKey) && !rs.metadata.deletionTimestamp;
    // Waiting on expectations: if the events we wait for never come, look again when they expire.
    if (!this.expectations.satisfied(rsKey)) this.worker.addAfter(rsKey, this.expectations.msUntilExpired(rsKey));
    const selector = this.kind.selector(rs);
    if (!selector) {
      this.ctx.logger.warn({ [this.kind.resource.singular]: rsKey }, `${this.kind.kind} has an empty or invalid selector; not syncing`);
      return;
    }
    const all = claimCandidates(this.podInformer.store, rs).filter(isPodActive);
    const owned = await claimObjects(all, {
      client: this.ctx.client,
      owner: rs,
      ref: controllerRef(rs, this.kind.apiVersion, this.kind.kind),
      selector,
      resource: R.pods,
      canAdopt: recheckOwner(this.ctx.client, this.kind.resource, rs),
    });

    let manageError: unknown;
    if (needsSync) {
      try {
        await this.manageReplicas(rsKey, owned, rs);
      } catch (e) {
        manageError = e;
      }
    }
    const status = this.calculateStatus(rs, owned, manageError);
    const updated = await this.updateStatus(rs, status);
    const minReady = rs.spec.minReadySeconds ?? 0;
    if (
      manageError === undefined &&
      updated &&
      minReady > 0 &&
      (updated.status?.readyReplicas ?? 0) === (rs.spec.replicas ?? 1) &&
      (updated.status?.availableReplicas ?? 0) !== (rs.spec.replicas ?? 1)
    ) {
      this.worker.addAfter(rsKey, minReady * 1000);
    }
    if (manageError !== undefined) throw manageError;
  }

  private async manageReplicas(rsKey: string, pods: Pod[], rs: ReplicaSet): Promise<void> {
    const want = rs.spec.replicas ?? 1;
    const diff = pods.length - want;
    if (diff < 0) {
      const n = Math.min(-diff, BURST_REPLICAS);
      const template = rs.spec.template;
      if (!template) return;
      // Expect before creating: the informer may report a new pod before create() returns.
      this.expectations.expectCreations(rsKey, n);
      const ref = controllerRef(rs, this.kind.apiVersion, this.kind.kind);
      const { successes, failures, error } = await slowStartBatch(n, SLOW_START_INITIAL_BATCH, () => this.podControl.createPod(rs, template, ref));
      // Never sent, or certainly refused: the informer will not report these pods.
      const unsent = n - successes - failures.length;
      const refused = failures.filter(definitelyNotApplied).length;
      if (unsent + refused > 0) this.expectations.lowerExpectations(rsKey, unsent + refused, 0);
      // Outcome unknown (connection lost mid-request): the pod may exist; wait for the informer a while
      // rather than risk a duplicate.
      if (failures.length > refused) this.expectations.expireWithin(rsKey, AMBIGUOUS_CREATE_WAIT_MS);
      if (error !== undefined) throw error;
      return;
    }
    if (diff > 0) {
      const n = Math.min(diff, BURST_REPLICAS);
      const related = this.relatedPods(rs);
      const victims = podsToDelete(pods, related, n, this.ctx.clock.now());
      this.expectations.expectDeletions(
        rsKey,
        victims.map((p) => key(p.metadata.namespace, p.metadata.name)),
      );
      const results = await Promise.allSettled(
        victims.map(async (p) => {
          try {
            await this.podControl.deletePod(rs, p);
          } catch (e) {
            if (isNotFound(e) || definitelyNotApplied(e)) {
              // The informer will not report this deletion (gone already, or refused): stop waiting for it.
              this.expectations.deletionObserved(rsKey, key(p.metadata.namespace, p.metadata.name));
            } else {
              // Unknown outcome: the pod may be going; do not pick another victim until we know.
              this.expectations.expireWithin(rsKey, AMBIGUOUS_CREATE_WAIT_MS);
            }
            if (!isNotFound(e)) throw e;
          }
        }),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }

  /** Active pods of every ReplicaSet with the same owner (a Deployment's siblings), for node co-location ranks. */
  private relatedPods(rs: ReplicaSet): Pod[] {
    const owner = getControllerOf(rs);
    const siblings = owner
      ? this.rsInformer.store.byIndex('namespace', rs.metadata.namespace ?? '').filter((x) => getControllerOf(x)?.uid === owner.uid)
      : [rs];
    const uids = new Set(siblings.map((x) => x.metadata.uid));
    return this.podInformer.store
      .byIndex('namespace', rs.metadata.namespace ?? '')
      .filter((p) => isPodActive(p) && uids.has(getControllerOf(p)?.uid));
  }

  calculateStatus(rs: ReplicaSet, pods: Pod[], manageError: unknown): ReplicaSetStatus {
    const now = this.ctx.clock.now();
    const templateLabels = rs.spec.template?.metadata?.labels ?? {};
    let fullyLabeled = 0;
    let ready = 0;
    let available = 0;
    for (const p of pods) {
      const labels = p.metadata.labels ?? {};
      if (Object.entries(templateLabels).every(([k, v]) => labels[k] === v)) fullyLabeled++;
      if (isPodReady(p)) {
        ready++;
        if (isPodAvailable(p, rs.spec.minReadySeconds ?? 0, now)) available++;
      }
    }
    const status: ReplicaSetStatus = {
      replicas: pods.length,
      fullyLabeledReplicas: fullyLabeled,
      readyReplicas: ready,
      availableReplicas: available,
      observedGeneration: rs.metadata.generation,
    };
    const conditions = (rs.status?.conditions ?? []).filter((c) => c.type !== 'ReplicaFailure');
    const failure = rs.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
    if (manageError !== undefined) {
      const reason = pods.length < (rs.spec.replicas ?? 1) ? 'FailedCreate' : 'FailedDelete';
      const cond: Condition = failure ?? {
        type: 'ReplicaFailure',
        status: 'True',
        reason,
        message: String((manageError as Error).message ?? manageError),
        lastTransitionTime: formatTime(now),
      };
      conditions.push(cond);
    }
    if (conditions.length > 0) status.conditions = conditions;
    return status;
  }

  private async updateStatus(rs: ReplicaSet, status: ReplicaSetStatus): Promise<ReplicaSet | undefined> {
    const cur = rs.status;
    if (
      cur &&
      cur.replicas === status.replicas &&
      (cur.fullyLabeledReplicas ?? 0) === status.fullyLabeledReplicas &&
      (cur.readyReplicas ?? 0) === status.readyReplicas &&
      (cur.availableReplicas ?? 0) === status.availableReplicas &&
      cur.observedGeneration === status.observedGeneration &&
      JSON.stringify(cur.conditions ?? []) === JSON.stringify(status.conditions ?? [])
    ) {
      return rs;
    }
    let target = rs;
    for (let attempt = 0; ; attempt++) {
      const next = structuredClone(target);
      next.status = { ...status, observedGeneration: status.observedGeneration };
      try {
        return await this.ctx.client.updateStatus<ReplicaSet>(this.kind.resource, rs.metadata.namespace, next);
      } catch (e) {
        if (isNotFound(e)) return undefined;
        if (attempt >= 1) throw e;
        // One retry on a fresh copy (statusUpdateRetries = 1), as Kubernetes does.
        target = await this.ctx.client.get<ReplicaSet>(this.kind.resource, rs.metadata.namespace, rs.metadata.name ?? '');
      }
    }
  }
}

export const replicaSetDescriptor: ControllerDescriptor = {
  name: 'replicaset-controller',
  serviceAccountName: 'replicaset-controller',
  aliases: ['replicaset'],
  enabledByDefault: true,
  create: (ctx) => new ReplicaSetController(ctx),
};

export const replicationControllerDescriptor: ControllerDescriptor = {
  name: 'replicationcontroller-controller',
  serviceAccountName: 'replication-controller',
  aliases: ['replicationcontroller'],
  enabledByDefault: true,
  create: (ctx) => new ReplicaSetController(ctx, REPLICATION_CONTROLLER_KIND),
};
