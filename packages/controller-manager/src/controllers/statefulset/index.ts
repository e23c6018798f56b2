// statefulset-controller (pkg/controller/statefulset): pods <set>-<ordinal> with stable hostnames and claims,
// created in ordinal order and removed in reverse (OrderedReady: one at a time, each waiting for the one before
// to be Running and Ready; Parallel: all at once); RollingUpdate from the highest ordinal down to the partition,
// one at a time (maxUnavailable at a time with the MaxUnavailableStatefulSet gate), or OnDelete; the template's history as ControllerRevisions with
// currentRevision/updateRevision; persistentVolumeClaimRetentionPolicy through owner references.
import { R, type ControllerRevision, type KubeObject, type PersistentVolumeClaim, type PersistentVolumeClaimTemplate, type Pod, type StatefulSet, type StatefulSetStatus } from '@kemu/api';
import { isAlreadyExists, isNotFound, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { FeatureGates } from '@kemu/base';
import type { Controller, ControllerContext, ControllerDescriptor } from '../../controller.ts';
import { featureGates, type ControllerManagerGate } from '../../features.ts';
import { KeyedWorker } from '../base.ts';
import { controllerRef } from '../podcontrol.ts';
import { claimCandidates, ensureControllerIndex, getControllerOf, isPodAvailable, isPodReady } from '../pods.ts';
import { claimObjects, recheckOwner } from '../refmanager.ts';
import { scaledValue } from '../deployment/util.ts';
import {
  REVISION_HASH_LABEL,
  createRevision,
  equalRevisions,
  hashRevisionData,
  nextRevision,
  ownedRevisions,
  renumberRevision,
  setSelector,
  templateOfRevision,
  templatePatch,
  truncateHistory,
} from '../history.ts';
import { claimName, newStatefulPod, ordinalOf, revisionOf, startOrdinal } from './identity.ts';
import { claimOwnerRefs, claimOwnerUpToDate, hasStaleOwnerRef } from './claims.ts';

const API_VERSION = 'apps/v1';
const KIND = 'StatefulSet';

const key = (ns: string | undefined, name: string | undefined) => `${ns ?? ''}/${name ?? ''}`;
const isTerminating = (p: Pod) => p.metadata.deletionTimestamp !== undefined && p.metadata.deletionTimestamp !== null;
const isFailedOrSucceeded = (p: Pod) => p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded';
const runningAndReady = (p: Pod) => p.status?.phase === 'Running' && isPodReady(p);

// Kubernetes' statefulSetResyncPeriod: every set is synced again this often (a claim deleted under a pending
// pod is re-created on the next pass).
const RESYNC_MS = 30_000;

export class StatefulSetController implements Controller {
  readonly name = 'statefulset-controller';
  private readonly setInformer: SharedInformer<StatefulSet>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly crInformer: SharedInformer<ControllerRevision>;
  private readonly claimInformer: SharedInformer<PersistentVolumeClaim>;
  private readonly worker: KeyedWorker;
  private readonly gates: FeatureGates<ControllerManagerGate>;

  constructor(private readonly ctx: ControllerContext) {
    this.gates = featureGates(ctx.options);
    this.setInformer = ctx.informers.informerFor<StatefulSet>(R.statefulsets);
    this.podInformer = ctx.informers.informerFor<Pod>(R.pods);
    this.crInformer = ctx.informers.informerFor<ControllerRevision>(R.controllerrevisions);
    this.claimInformer = ctx.informers.informerFor<PersistentVolumeClaim>(R.persistentvolumeclaims);
    ensureControllerIndex(this.podInformer);
    this.worker = new KeyedWorker(ctx, {
      name: this.name,
      workers: ctx.options['concurrent-statefulset-syncs'],
      sync: (k) => this.sync(k),
    }).waitFor(this.setInformer, this.podInformer, this.crInformer, this.claimInformer);
    this.setInformer.addEventHandler(
      {
        onAdd: (s) => this.worker.enqueue(s),
        onUpdate: (_o, s) => this.worker.enqueue(s),
        onDelete: () => undefined,
      },
      RESYNC_MS,
    );
    this.podInformer.addEventHandler({
      onAdd: (p) => this.podEvent(p),
      onUpdate: (_o, p) => this.podEvent(p),
      onDelete: (obj) => this.podEvent(unwrapDeleted(obj)),
    });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private podEvent(pod: Pod): void {
    const ref = getControllerOf(pod);
    if (ref) {
      if (ref.kind !== KIND) return;
      const set = this.setInformer.store.get(key(pod.metadata.namespace, ref.name));
      if (set && set.metadata.uid === ref.uid) this.worker.enqueue(set);
      return;
    }
    for (const s of this.setInformer.store.byIndex('namespace', pod.metadata.namespace ?? '')) this.worker.enqueue(s);
  }

  async sync(setKey: string): Promise<void> {
    const cached = this.setInformer.store.get(setKey);
    if (!cached || cached.metadata.deletionTimestamp) return;
    const set = structuredClone(cached);
    const selector = setSelector(set.spec.selector);
    if (!selector) return;
    const pods = await claimObjects(claimCandidates(this.podInformer.store, set), {
      client: this.ctx.client,
      owner: set,
      ref: controllerRef(set, API_VERSION, KIND),
      selector,
      resource: R.pods,
      canAdopt: recheckOwner(this.ctx.client, R.statefulsets, set),
    });
    const revisions = ownedRevisions(this.crInformer.store.byIndex('namespace', set.metadata.namespace ?? ''), set);
    const { current, update, collisionCount } = await this.getRevisions(set, revisions);
    let error: unknown;
    let seen: Pod[] = pods;
    try {
      seen = await this.updateStatefulSet(set, current, update, pods);
    } catch (e) {
      error = e;
    }
    const status = this.computeStatus(set, seen, current, update, collisionCount);
    await this.writeStatus(set, status);
    const live = new Set([current.metadata.name ?? '', update.metadata.name ?? '', ...seen.map((p) => revisionOf(p) ?? '')]);
    await truncateHistory(this.ctx.client, revisions.filter((r) => r.metadata.name !== update.metadata.name), live, set.spec.revisionHistoryLimit ?? 10);
    if (error !== undefined) throw error;
    // Pods turn available minReadySeconds after Ready: count them then.
    const minReady = set.spec.minReadySeconds ?? 0;
    if (minReady > 0 && (status.availableReplicas ?? 0) !== (status.readyReplicas ?? 0)) this.worker.addAfter(setKey, minReady * 1000 + 500);
  }

  /** getStatefulSetRevisions: the update revision (existing, renumbered on a rollback, or created) and the current one. */
  private async getRevisions(set: StatefulSet, revisions: ControllerRevision[]): Promise<{ current: ControllerRevision; update: ControllerRevision; collisionCount: number }> {
    const data = templatePatch(set.spec.template);
    const next = nextRevision(revisions);
    let collisionCount = set.status?.collisionCount ?? 0;
    const equal = revisions.filter((r) => equalRevisions(r, { data } as ControllerRevision));
    const last = revisions[revisions.length - 1];
    let update: ControllerRevision;
    const lastEqual = equal[equal.length - 1];
    if (lastEqual && last && lastEqual.metadata.name === last.metadata.name) update = last;
    else if (lastEqual) update = await renumberRevision(this.ctx.client, lastEqual, next);
    else {
      const created = await createRevision(
        this.ctx.client,
        {
          owner: set,
          ref: controllerRef(set, API_VERSION, KIND),
          name: (c) => `${set.metadata.name ?? ''}-${hashRevisionData(data, c)}`,
          labels: { ...(set.spec.template.metadata?.labels ?? {}), [REVISION_HASH_LABEL]: hashRevisionData(data, collisionCount) },
          ...(set.metadata.annotations ? { annotations: set.metadata.annotations } : {}),
          data,
          revision: next,
        },
        collisionCount,
      );
      update = created.revision;
      collisionCount = created.collisionCount;
    }
    const current = revisions.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount };
  }

  /**
   * updateStatefulSet: create missing ordinals, remove condemned ones, then roll the update down to the partition.
   * Returns the pods as they stand after this pass (created ones added) for the status.
   */
  private async updateStatefulSet(set: StatefulSet, current: ControllerRevision, update: ControllerRevision, pods: Pod[]): Promise<Pod[]> {
    const start = startOrdinal(set);
    const count = set.spec.replicas ?? 1;
    const monotonic = (set.spec.podManagementPolicy ?? 'OrderedReady') !== 'Parallel';
    const rolling = (set.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
    const minReady = set.spec.minReadySeconds ?? 0;
    const now = this.ctx.clock.now();
    const healthy = (p: Pod) => !isTerminating(p) && runningAndReady(p) && isPodAvailable(p, minReady, now);
    const replicas: (Pod | undefined)[] = new Array<Pod | undefined>(count).fill(undefined);
    const condemned: Pod[] = [];
    const seen = [...pods];
    for (const p of pods) {
      const ord = ordinalOf(set, p);
      if (ord < 0) continue;
      if (ord >= start && ord < start + count) replicas[ord - start] = p;
      else condemned.push(p);
    }
    condemned.sort((a, b) => ordinalOf(set, b) - ordinalOf(set, a));

    for (let i = 0; i < count; i++) {
      const ordinal = start + i;
      let pod = replicas[i];
      if (pod && isFailedOrSucceeded(pod)) {
        // A finished pod is replaced (Kubernetes deletes it and creates it again).
        if (!isTerminating(pod)) await this.deletePod(set, pod);
        if (monotonic) return seen;
        continue;
      }
      if (!pod) {
        // Ordinals below the partition keep the current revision; the rest get the update revision.
        const useCurrent = rolling && i < partition;
        const revision = useCurrent ? current : update;
        const template = (useCurrent ? templateOfRevision(current) : undefined) ?? set.spec.template;
        pod = newStatefulPod(set, template, ordinal, revision.metadata.name ?? '', controllerRef(set, API_VERSION, KIND));
        // PodClaimIsStale: a claim still owned by an earlier pod of this name waits for the garbage collector.
        if (this.claimIsStale(set, pod)) {
          if (monotonic) return seen;
          continue;
        }
        const created = await this.createPod(set, pod);
        if (created) seen.push(created);
        if (monotonic) return seen;
        continue;
      }
      // A pending pod gets back a claim deleted under it.
      if (pod.status?.phase === 'Pending') {
        await this.createClaims(set, pod);
        await this.fixClaimOwners(set, pod, false);
      }
      if (isTerminating(pod) && monotonic) return seen;
      if (!healthy(pod) && monotonic) return seen;
      if (!isTerminating(pod)) await this.fixClaimOwners(set, pod, false);
    }

    // Claims of the pods about to be removed change hands first (whenScaled: Delete gives them to the pod).
    for (const pod of condemned) await this.fixClaimOwners(set, pod, true);

    for (const pod of condemned) {
      if (isTerminating(pod)) {
        if (monotonic) return seen;
        continue;
      }
      await this.deletePod(set, pod);
      if (monotonic) return seen;
    }

    if (!rolling) return seen;
    if (this.gates.enabled('MaxUnavailableStatefulSet')) return this.rollWithMaxUnavailable(set, replicas, update, partition, healthy, seen);
    // Without the gate maxUnavailable is ignored: the highest ordinal not at the update revision is deleted,
    // and the roll waits for each updated pod to be available before going lower.
    for (let i = count - 1; i >= partition; i--) {
      const pod = replicas[i];
      if (pod && revisionOf(pod) !== update.metadata.name && !isTerminating(pod)) {
        await this.deletePod(set, pod);
        return seen;
      }
      if (!pod || !healthy(pod)) return seen;
    }
    return seen;
  }

  /**
   * updateStatefulSetAfterInvariantEstablished (MaxUnavailableStatefulSet): with u of the replicas unavailable,
   * delete up to maxUnavailable - u pods not at the update revision, highest ordinal first, down to the partition.
   */
  private async rollWithMaxUnavailable(set: StatefulSet, replicas: (Pod | undefined)[], update: ControllerRevision, partition: number, healthy: (p: Pod) => boolean, seen: Pod[]): Promise<Pod[]> {
    const count = replicas.length;
    const maxUnavailable = Math.max(1, scaledValue(set.spec.updateStrategy?.rollingUpdate?.maxUnavailable, count, false, 1));
    const unavailable = replicas.filter((p) => !p || !healthy(p)).length;
    if (unavailable >= maxUnavailable) return seen;
    let toDelete = maxUnavailable - unavailable;
    for (let i = count - 1; i >= partition && toDelete > 0; i--) {
      const pod = replicas[i];
      if (!pod || revisionOf(pod) === update.metadata.name || isTerminating(pod)) continue;
      await this.deletePod(set, pod);
      toDelete--;
    }
    return seen;
  }

  /** createPersistentVolumeClaims, the pod, then the claims' owners; an existing pod of that name is left alone (a stale cache). */
  private async createPod(set: StatefulSet, pod: Pod): Promise<Pod | undefined> {
    const ns = set.metadata.namespace ?? '';
    const event = (e: unknown) => this.ctx.recorder.event(set, 'Warning', 'FailedCreate', `create Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''} failed error: ${(e as Error).message}`);
    try {
      await this.createClaims(set, pod);
    } catch (e) {
      event(e);
      throw e;
    }
    let created: Pod;
    try {
      created = await this.ctx.client.create<Pod>(R.pods, ns, pod);
    } catch (e) {
      if (isAlreadyExists(e)) return undefined;
      event(e);
      throw e;
    }
    await this.fixClaimOwners(set, created, false);
    this.ctx.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''} successful`);
    return created;
  }

  private claimsOf(set: StatefulSet, pod: Pod): { name: string; template: PersistentVolumeClaimTemplate; claim: PersistentVolumeClaim | undefined }[] {
    const ns = set.metadata.namespace ?? '';
    const ordinal = ordinalOf(set, pod);
    return (set.spec.volumeClaimTemplates ?? []).map((template) => {
      const name = claimName(template, set, ordinal);
      return { name, template, claim: this.claimInformer.store.get(`${ns}/${name}`) };
    });
  }

  private claimIsStale(set: StatefulSet, pod: Pod): boolean {
    if (set.spec.persistentVolumeClaimRetentionPolicy?.whenScaled !== 'Delete') return false;
    return this.claimsOf(set, pod).some((c) => c.claim !== undefined && hasStaleOwnerRef(c.claim, pod));
  }

  /**
   * createPersistentVolumeClaims: the claims of a pod that do not exist (labels: the template's and the selector's
   * matchLabels); a claim being deleted is an error until it is gone.
   */
  private async createClaims(set: StatefulSet, pod: Pod): Promise<void> {
    const errors: string[] = [];
    for (const { name, template, claim } of this.claimsOf(set, pod)) {
      if (claim) {
        if (claim.metadata.deletionTimestamp) errors.push(`pvc ${name} is being deleted`);
        continue;
      }
      const fresh = this.claimFor(set, template, ordinalOf(set, pod));
      try {
        await this.ctx.client.create(R.persistentvolumeclaims, set.metadata.namespace, fresh);
        this.ctx.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''} success`);
      } catch (e) {
        // Created since the cache was read: nothing to do.
        if (isAlreadyExists(e)) continue;
        this.ctx.recorder.event(set, 'Warning', 'FailedCreate', `create Claim ${name} for Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''} failed error: ${(e as Error).message}`);
        errors.push(`failed to create PVC ${name}: ${(e as Error).message}`);
      }
    }
    // errors.NewAggregate: one message alone, several in brackets.
    if (errors.length === 1) throw new Error(errors[0]);
    if (errors.length > 1) throw new Error(`[${errors.join(', ')}]`);
  }

  /** UpdatePodClaimForRetentionPolicy: each existing claim's owner references as the policy wants them. */
  private async fixClaimOwners(set: StatefulSet, pod: Pod, scaledDown: boolean): Promise<void> {
    for (const { name, claim } of this.claimsOf(set, pod)) {
      if (!claim || claimOwnerUpToDate(claim, set, pod, scaledDown)) continue;
      const ownerReferences = claimOwnerRefs(claim, set, pod, scaledDown);
      try {
        // An update, not a patch: the controller's bootstrap role may update claims but not patch them.
        await this.ctx.client.update(R.persistentvolumeclaims, set.metadata.namespace, { ...claim, metadata: { ...claim.metadata, ownerReferences } });
      } catch (e) {
        if (isNotFound(e)) continue;
        const err = new Error(`Could not update claim ${name} for delete policy ownerRefs: ${(e as Error).message}`);
        this.ctx.recorder.event(set, 'Warning', 'FailedUpdate', `update Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''} failed error: ${err.message}`);
        throw err;
      }
    }
  }

  private claimFor(set: StatefulSet, t: PersistentVolumeClaimTemplate, ordinal: number): KubeObject {
    const labels = { ...(t.metadata.labels ?? {}), ...(set.spec.selector.matchLabels ?? {}) };
    const claim: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claimName(t, set, ordinal), namespace: set.metadata.namespace ?? '', labels },
      spec: structuredClone(t.spec ?? {}),
    };
    if (t.metadata.annotations) claim.metadata.annotations = { ...t.metadata.annotations };
    return claim;
  }

  private async deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    const name = pod.metadata.name ?? '';
    try {
      await this.ctx.client.delete(R.pods, pod.metadata.namespace, name, { preconditions: { uid: pod.metadata.uid } });
      this.ctx.recorder.event(set, 'Normal', 'SuccessfulDelete', `delete Pod ${name} in StatefulSet ${set.metadata.name ?? ''} successful`);
    } catch (e) {
      if (isNotFound(e)) return;
      this.ctx.recorder.event(set, 'Warning', 'FailedDelete', `delete Pod ${name} in StatefulSet ${set.metadata.name ?? ''} failed error: ${(e as Error).message}`);
      throw e;
    }
  }

  private computeStatus(set: StatefulSet, pods: Pod[], current: ControllerRevision, update: ControllerRevision, collisionCount: number): StatefulSetStatus {
    const now = this.ctx.clock.now();
    const minReady = set.spec.minReadySeconds ?? 0;
    const status: StatefulSetStatus = {
      observedGeneration: set.metadata.generation ?? 0,
      replicas: 0,
      readyReplicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      currentRevision: current.metadata.name ?? '',
      updateRevision: update.metadata.name ?? '',
      collisionCount,
      availableReplicas: 0,
    };
    for (const p of pods) {
      if (ordinalOf(set, p) < 0) continue;
      status.replicas++;
      if (runningAndReady(p) && !isTerminating(p)) {
        status.readyReplicas = (status.readyReplicas ?? 0) + 1;
        if (isPodAvailable(p, minReady, now)) status.availableReplicas = (status.availableReplicas ?? 0) + 1;
      }
      if (isTerminating(p)) continue;
      if (revisionOf(p) === current.metadata.name) status.currentReplicas = (status.currentReplicas ?? 0) + 1;
      if (revisionOf(p) === update.metadata.name) status.updatedReplicas = (status.updatedReplicas ?? 0) + 1;
    }
    // completeRollingUpdate: every pod updated and ready makes the update revision current.
    const rolling = (set.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    if (rolling && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
      status.currentRevision = status.updateRevision ?? '';
      status.currentReplicas = status.updatedReplicas;
    }
    if (set.status?.conditions) status.conditions = set.status.conditions;
    return status;
  }

  private async writeStatus(set: StatefulSet, status: StatefulSetStatus): Promise<void> {
    if (JSON.stringify(set.status ?? {}) === JSON.stringify(status)) return;
    try {
      await this.ctx.client.updateStatus<StatefulSet>(R.statefulsets, set.metadata.namespace, { ...set, status });
    } catch (e) {
      if (isNotFound(e)) return;
      const fresh = await this.ctx.client.get<StatefulSet>(R.statefulsets, set.metadata.namespace, set.metadata.name ?? '');
      await this.ctx.client.updateStatus<StatefulSet>(R.statefulsets, set.metadata.namespace, { ...fresh, status });
    }
  }
}

export const statefulSetDescriptor: ControllerDescriptor = {
  name: 'statefulset-controller',
  serviceAccountName: 'statefulset-controller',
  aliases: ['statefulset'],
  enabledByDefault: true,
  create: (ctx) => new StatefulSetController(ctx),
};
