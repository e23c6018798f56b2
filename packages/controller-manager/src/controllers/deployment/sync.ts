// The deployment controller's shared steps (Kubernetes' deployment/sync.go): find or create the new replica
// set and keep revisions in step, proportional scaling, history cleanup, and status.
import { R, type Deployment, type DeploymentStatus, type ReplicaSet } from '@kemu/api';
import { isAlreadyExists, isNotFound, type RestClient, type EventRecorder } from '@kemu/client';
import type { Clock, Logger } from '@kemu/base';
import { controllerRef } from '../podcontrol.ts';
import { getControllerOf } from '../pods.ts';
import * as u from './util.ts';

export interface DeploymentDeps {
  client: RestClient;
  recorder: EventRecorder;
  clock: Clock;
  logger: Logger;
  /** The cached replica set named so (for AlreadyExists handling). */
  cachedReplicaSet(namespace: string, name: string): ReplicaSet | undefined;
  enqueueAfter(key: string, ms: number): void;
}

const API_VERSION = 'apps/v1';
const KIND = 'Deployment';

export function deploymentKey(d: Deployment): string {
  return `${d.metadata.namespace ?? ''}/${d.metadata.name ?? ''}`;
}

/** Writes the revision annotation (metadata, main resource) and the status (/status) of the deployment. */
export async function updateDeployment(deps: DeploymentDeps, d: Deployment, revisionChanged: boolean): Promise<Deployment> {
  let cur = d;
  if (revisionChanged) {
    // An update, not a patch: system:controller:deployment-controller may update deployments but not patch them.
    const updated = await deps.client.update<Deployment>(R.deployments, d.metadata.namespace, d);
    cur = { ...d, metadata: { ...d.metadata, resourceVersion: updated.metadata.resourceVersion } };
  }
  return deps.client.updateStatus<Deployment>(R.deployments, d.metadata.namespace, cur);
}

function setDeploymentRevision(d: Deployment, revision: string): boolean {
  if (d.metadata.annotations?.[u.REVISION] === revision) return false;
  d.metadata.annotations = { ...(d.metadata.annotations ?? {}), [u.REVISION]: revision };
  return true;
}

export interface AllReplicaSets {
  newRS: ReplicaSet | undefined;
  oldRSs: ReplicaSet[];
  /** The deployment as last written (status/annotation updates made here). */
  d: Deployment;
}

/** getAllReplicaSetsAndSyncRevision: old/new split, creating the new replica set when asked. */
export async function getAllReplicaSetsAndSyncRevision(deps: DeploymentDeps, d: Deployment, rsList: ReplicaSet[], create: boolean): Promise<AllReplicaSets> {
  const existingNew = u.findNewReplicaSet(d, rsList);
  const oldRSs = u.findOldReplicaSets(d, rsList, existingNew);
  const { rs, d: d2 } = await getNewReplicaSet(deps, d, rsList, oldRSs, existingNew, create);
  return { newRS: rs, oldRSs, d: d2 };
}

async function getNewReplicaSet(
  deps: DeploymentDeps,
  d: Deployment,
  rsList: ReplicaSet[],
  oldRSs: ReplicaSet[],
  existing: ReplicaSet | undefined,
  create: boolean,
): Promise<{ rs: ReplicaSet | undefined; d: Deployment }> {
  const maxOldRevision = Math.max(0, ...oldRSs.map(u.revisionOf));
  const newRevision = maxOldRevision + 1;
  const now = deps.clock.now();

  if (existing) {
    let rs = structuredClone(existing);
    const annotationsUpdated = u.setNewReplicaSetAnnotations(d, rs, newRevision, true);
    const minReadyChanged = (rs.spec.minReadySeconds ?? 0) !== (d.spec.minReadySeconds ?? 0);
    if (annotationsUpdated || minReadyChanged) {
      rs.spec.minReadySeconds = d.spec.minReadySeconds ?? 0;
      rs = await deps.client.update<ReplicaSet>(R.replicasets, rs.metadata.namespace, rs);
    }
    const revisionChanged = setDeploymentRevision(d, rs.metadata.annotations?.[u.REVISION] ?? '');
    let statusChanged = false;
    if (!u.getCondition(d.status, 'Progressing') && u.hasProgressDeadline(d)) {
      const status: DeploymentStatus = structuredClone(d.status ?? {});
      u.setCondition(status, u.newCondition('Progressing', 'True', u.REASONS.FoundNewReplicaSet, `Found new replica set "${rs.metadata.name ?? ''}"`, now));
      d.status = status;
      statusChanged = true;
    }
    if (revisionChanged || statusChanged) d = await updateDeployment(deps, d, revisionChanged);
    return { rs, d };
  }
  if (!create) return { rs: undefined, d };

  const template = structuredClone(d.spec.template);
  const hash = u.computeHash(d.spec.template, d.status?.collisionCount);
  template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [u.POD_TEMPLATE_HASH]: hash } };
  const selector = structuredClone(d.spec.selector);
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [u.POD_TEMPLATE_HASH]: hash };
  const name = `${d.metadata.name ?? ''}-${hash}`;
  const rs: ReplicaSet = {
    apiVersion: API_VERSION,
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: d.metadata.namespace,
      ownerReferences: [controllerRef(d, API_VERSION, KIND)],
      labels: { ...(template.metadata.labels ?? {}) },
    },
    spec: { replicas: 0, minReadySeconds: d.spec.minReadySeconds ?? 0, selector, template },
  };
  const allRSs = [...oldRSs];
  const newReplicas = newRSNewReplicas(d, allRSs, undefined);
  rs.spec.replicas = newReplicas;
  u.setNewReplicaSetAnnotations(d, rs, newRevision, false);

  let created: ReplicaSet;
  try {
    created = await deps.client.create<ReplicaSet>(R.replicasets, d.metadata.namespace, rs);
  } catch (e) {
    if (isAlreadyExists(e)) {
      const found = deps.cachedReplicaSet(d.metadata.namespace ?? '', name) ?? (await deps.client.get<ReplicaSet>(R.replicasets, d.metadata.namespace, name));
      // Ours, with our template: a previous attempt (or a stale cache) — use it.
      if (getControllerOf(found)?.uid === d.metadata.uid && u.equalIgnoreHash(found.spec.template, d.spec.template)) return { rs: found, d };
      // A genuine hash collision: bump collisionCount so the next attempt gets a different name.
      const status: DeploymentStatus = structuredClone(d.status ?? {});
      status.collisionCount = (status.collisionCount ?? 0) + 1;
      await deps.client.updateStatus<Deployment>(R.deployments, d.metadata.namespace, { ...d, status });
      throw new Error(`hash collision for replica set ${name}: collisionCount is now ${status.collisionCount}`, { cause: e });
    }
    if (u.hasProgressDeadline(d)) {
      const msg = `Failed to create new replica set "${name}": ${(e as Error).message}`;
      const status: DeploymentStatus = structuredClone(d.status ?? {});
      u.setCondition(status, u.newCondition('Progressing', 'False', u.REASONS.FailedRSCreate, msg, now));
      deps.recorder.event(d, 'Warning', u.REASONS.FailedRSCreate, msg);
      await deps.client.updateStatus<Deployment>(R.deployments, d.metadata.namespace, { ...d, status }).catch(() => undefined);
    }
    throw e;
  }
  if (newReplicas > 0) deps.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${name} from 0 to ${newReplicas}`);
  const revisionChanged = setDeploymentRevision(d, String(newRevision));
  if (u.hasProgressDeadline(d)) {
    const status: DeploymentStatus = structuredClone(d.status ?? {});
    u.setCondition(status, u.newCondition('Progressing', 'True', u.REASONS.NewReplicaSetCreated, `Created new replica set "${name}"`, now));
    d.status = status;
  }
  d = await updateDeployment(deps, d, revisionChanged);
  return { rs: created, d };
}

/** NewRSNewReplicas: how big the new replica set may be now. */
export function newRSNewReplicas(d: Deployment, allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined): number {
  if (!u.isRollingUpdate(d)) return u.replicas(d);
  const current = u.sumSpecReplicas(allRSs);
  const maxTotal = u.replicas(d) + u.maxSurge(d);
  if (current >= maxTotal) return u.rsReplicas(newRS);
  const up = Math.min(maxTotal - current, u.replicas(d) - u.rsReplicas(newRS));
  return u.rsReplicas(newRS) + up;
}

/** Scales one replica set (and keeps its desired/max annotations current); true if its size changed. */
export async function scaleReplicaSet(deps: DeploymentDeps, rs: ReplicaSet, size: number, d: Deployment): Promise<{ scaled: boolean; rs: ReplicaSet }> {
  const from = u.rsReplicas(rs);
  const sizeChanged = from !== size;
  const desired = u.replicas(d);
  const max = desired + u.maxSurge(d);
  if (!sizeChanged && !u.replicasAnnotationsNeedUpdate(rs, desired, max)) return { scaled: false, rs };
  const next = structuredClone(rs);
  next.spec.replicas = size;
  u.setReplicasAnnotations(next, desired, max);
  const updated = await deps.client.update<ReplicaSet>(R.replicasets, next.metadata.namespace, next);
  if (sizeChanged) {
    const op = from < size ? 'up' : 'down';
    deps.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${op} replica set ${rs.metadata.name ?? ''} from ${from} to ${size}`);
  }
  return { scaled: sizeChanged, rs: updated };
}

/** isScalingEvent: some active replica set was sized for a different spec.replicas. */
export function isScalingEvent(d: Deployment, rsList: ReplicaSet[]): boolean {
  for (const rs of u.activeReplicaSets(rsList)) {
    const desired = u.intAnnotation(rs, u.DESIRED_REPLICAS);
    if (desired !== undefined && desired !== u.replicas(d)) return true;
  }
  return false;
}

function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const sorted = [...oldRSs].sort(byCreationDesc);
  const all = u.activeReplicaSets([...(newRS ? [newRS] : []), ...oldRSs]);
  if (all.length === 0) return newRS ?? sorted[0];
  if (all.length === 1) return all[0];
  return undefined;
}

function byCreationDesc(a: ReplicaSet, b: ReplicaSet): number {
  return u.byCreation(b, a);
}

function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  return u.rsReplicas(rs) === u.replicas(d) && u.intAnnotation(rs, u.DESIRED_REPLICAS) === u.replicas(d) && (rs.status?.availableReplicas ?? 0) === u.replicas(d);
}

function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  if (u.replicas(d) === 0) return -u.rsReplicas(rs);
  const deploymentReplicas = u.replicas(d) + u.maxSurge(d);
  const annotated = u.intAnnotation(rs, u.MAX_REPLICAS) ?? d.status?.replicas ?? 0;
  if (annotated === 0) return 0;
  const size = (u.rsReplicas(rs) * deploymentReplicas) / annotated;
  return Math.round(size) - u.rsReplicas(rs);
}

function proportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (u.rsReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** scale: resize for a changed spec.replicas, proportionally across active replica sets during a rollout. */
export async function scale(deps: DeploymentDeps, d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Promise<void> {
  const target = findActiveOrLatest(newRS, oldRSs);
  if (target) {
    if (u.rsReplicas(target) === u.replicas(d) && !u.replicasAnnotationsNeedUpdate(target, u.replicas(d), u.replicas(d) + u.maxSurge(d))) return;
    await scaleReplicaSet(deps, target, u.replicas(d), d);
    return;
  }
  if (isSaturated(d, newRS)) {
    for (const old of u.activeReplicaSets(oldRSs)) await scaleReplicaSet(deps, old, 0, d);
    return;
  }
  if (!u.isRollingUpdate(d)) return;
  const all = u.activeReplicaSets([...oldRSs, ...(newRS ? [newRS] : [])]);
  const allowed = u.replicas(d) > 0 ? u.replicas(d) + u.maxSurge(d) : 0;
  const toAdd = allowed - u.sumSpecReplicas(all);
  if (toAdd > 0) all.sort(u.bySizeNewer);
  else if (toAdd < 0) all.sort(u.bySizeOlder);
  let added = 0;
  const sizes = new Map<string, number>();
  for (const rs of all) {
    if (toAdd !== 0) {
      const p = proportion(rs, d, toAdd, added);
      sizes.set(rs.metadata.name ?? '', u.rsReplicas(rs) + p);
      added += p;
    } else {
      sizes.set(rs.metadata.name ?? '', u.rsReplicas(rs));
    }
  }
  for (let i = 0; i < all.length; i++) {
    const rs = all[i] as ReplicaSet;
    const name = rs.metadata.name ?? '';
    if (i === 0 && toAdd !== 0) sizes.set(name, Math.max(0, (sizes.get(name) ?? 0) + toAdd - added));
    await scaleReplicaSet(deps, rs, sizes.get(name) ?? 0, d);
  }
}

/** cleanupDeployment: deletes the oldest fully scaled-down replica sets beyond revisionHistoryLimit. */
export async function cleanupDeployment(deps: DeploymentDeps, oldRSs: ReplicaSet[], d: Deployment): Promise<void> {
  const limit = d.spec.revisionHistoryLimit ?? 10;
  const alive = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp);
  const diff = alive.length - limit;
  if (diff <= 0) return;
  const sorted = [...alive].sort(u.byRevision);
  for (let i = 0; i < diff; i++) {
    const rs = sorted[i] as ReplicaSet;
    if ((rs.status?.replicas ?? 0) !== 0 || u.rsReplicas(rs) !== 0 || (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
    try {
      await deps.client.delete(R.replicasets, rs.metadata.namespace, rs.metadata.name ?? '', { preconditions: { uid: rs.metadata.uid } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

/** calculateStatus: counts from the replica sets, plus the Available condition. */
export function calculateStatus(allRSs: ReplicaSet[], newRS: ReplicaSet | undefined, d: Deployment, now: number): DeploymentStatus {
  const available = u.sumAvailable(allRSs);
  const total = u.sumStatusReplicas(allRSs);
  // Unavailable counts against what the replica sets are asked to run (spec), never below zero.
  const unavailable = Math.max(0, u.sumSpecReplicas(allRSs) - available);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation,
    replicas: total,
    updatedReplicas: newRS?.status?.replicas ?? 0,
    readyReplicas: u.sumReady(allRSs),
    availableReplicas: available,
    unavailableReplicas: unavailable,
    conditions: structuredClone(d.status?.conditions ?? []),
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (available >= u.replicas(d) - u.maxUnavailable(d))
    u.setCondition(status, u.newCondition('Available', 'True', u.REASONS.MinimumReplicasAvailable, 'Deployment has minimum availability.', now));
  else u.setCondition(status, u.newCondition('Available', 'False', u.REASONS.MinimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
  return status;
}

/** syncDeploymentStatus: for scaling-only syncs (paused, scaling events). */
export async function syncDeploymentStatus(deps: DeploymentDeps, allRSs: ReplicaSet[], newRS: ReplicaSet | undefined, d: Deployment): Promise<void> {
  const status = calculateStatus(allRSs, newRS, d, deps.clock.now());
  if (u.statusEqual(d.status, status)) return;
  await deps.client.updateStatus<Deployment>(R.deployments, d.metadata.namespace, { ...d, status });
}

/** sync: scaling only (paused deployments and scaling events), then status. */
export async function syncScaling(deps: DeploymentDeps, d: Deployment, rsList: ReplicaSet[]): Promise<void> {
  const all = await getAllReplicaSetsAndSyncRevision(deps, d, rsList, false);
  d = all.d;
  await scale(deps, d, all.newRS, all.oldRSs);
  if (d.spec.paused) await cleanupDeployment(deps, all.oldRSs, d);
  // Re-read sizes after scaling for the status.
  const fresh = [...all.oldRSs, ...(all.newRS ? [all.newRS] : [])].map((rs) => deps.cachedReplicaSet(rs.metadata.namespace ?? '', rs.metadata.name ?? '') ?? rs);
  const newRS = all.newRS ? fresh.find((x) => x.metadata.uid === all.newRS?.metadata.uid) : undefined;
  await syncDeploymentStatus(deps, fresh, newRS, d);
}
