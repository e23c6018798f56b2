// RollingUpdate (Kubernetes' deployment/rolling.go): grow the new replica set while the total stays within
// replicas + maxSurge, shrink old ones while availability stays at or above replicas - maxUnavailable.
import type { Deployment, ReplicaSet } from '@kemu/api';
import { syncRolloutStatus } from './progress.ts';
import { cleanupDeployment, getAllReplicaSetsAndSyncRevision, newRSNewReplicas, scaleReplicaSet, type DeploymentDeps } from './sync.ts';
import * as u from './util.ts';

export async function rolloutRolling(deps: DeploymentDeps, d0: Deployment, rsList: ReplicaSet[]): Promise<void> {
  const { newRS: rs0, oldRSs, d } = await getAllReplicaSetsAndSyncRevision(deps, d0, rsList, true);
  let newRS = rs0;
  const allRSs = () => [...oldRSs, ...(newRS ? [newRS] : [])];

  const up = await reconcileNewReplicaSet(deps, allRSs(), newRS, d);
  if (up.scaled) {
    newRS = up.rs;
    return syncRolloutStatus(deps, allRSs(), newRS, d);
  }
  const down = await reconcileOldReplicaSets(deps, allRSs(), u.activeReplicaSets(oldRSs), newRS, d);
  if (down) return syncRolloutStatus(deps, allRSs(), newRS, d);
  if (u.deploymentComplete(d, d.status ?? {})) await cleanupDeployment(deps, oldRSs, d);
  return syncRolloutStatus(deps, allRSs(), newRS, d);
}

async function reconcileNewReplicaSet(
  deps: DeploymentDeps,
  allRSs: ReplicaSet[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
): Promise<{ scaled: boolean; rs: ReplicaSet | undefined }> {
  if (!newRS) return { scaled: false, rs: newRS };
  if (u.rsReplicas(newRS) === u.replicas(d)) return { scaled: false, rs: newRS };
  if (u.rsReplicas(newRS) > u.replicas(d)) return scaleReplicaSet(deps, newRS, u.replicas(d), d);
  return scaleReplicaSet(deps, newRS, newRSNewReplicas(d, allRSs, newRS), d);
}

/** Returns true if any old replica set was scaled down. */
async function reconcileOldReplicaSets(
  deps: DeploymentDeps,
  allRSs: ReplicaSet[],
  oldRSs: ReplicaSet[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
): Promise<boolean> {
  if (u.sumSpecReplicas(oldRSs) === 0) return false;
  const allPods = u.sumSpecReplicas(allRSs);
  const minAvailable = u.replicas(d) - u.maxUnavailable(d);
  const newUnavailable = u.rsReplicas(newRS) - (newRS?.status?.availableReplicas ?? 0);
  const maxScaledDown = allPods - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;

  // First remove old pods that are not available anyway (they cost no availability)...
  const { oldRSs: cleaned, scaledDown: cleanedCount } = await cleanupUnhealthyReplicas(deps, oldRSs, d, maxScaledDown);
  // ...then scale down available old pods as far as minAvailable allows.
  const all = [...cleaned, ...(newRS ? [newRS] : [])];
  const scaledCount = await scaleDownOldForRollingUpdate(deps, all, cleaned, d);
  return cleanedCount + scaledCount > 0;
}

async function cleanupUnhealthyReplicas(
  deps: DeploymentDeps,
  oldRSs: ReplicaSet[],
  d: Deployment,
  maxCleanup: number,
): Promise<{ oldRSs: ReplicaSet[]; scaledDown: number }> {
  const sorted = [...oldRSs].sort(u.byCreation);
  let total = 0;
  const out: ReplicaSet[] = [];
  for (const rs of sorted) {
    const available = rs.status?.availableReplicas ?? 0;
    if (total >= maxCleanup || u.rsReplicas(rs) === 0 || u.rsReplicas(rs) === available) {
      out.push(rs);
      continue;
    }
    const n = Math.min(maxCleanup - total, u.rsReplicas(rs) - available);
    const size = u.rsReplicas(rs) - n;
    if (size > u.rsReplicas(rs)) throw new Error(`when cleaning up unhealthy replicas, got invalid request to scale down ${rs.metadata.name ?? ''} ${u.rsReplicas(rs)} -> ${size}`);
    const { rs: updated } = await scaleReplicaSet(deps, rs, size, d);
    total += n;
    out.push(updated);
  }
  return { oldRSs: out, scaledDown: total };
}

async function scaleDownOldForRollingUpdate(deps: DeploymentDeps, allRSs: ReplicaSet[], oldRSs: ReplicaSet[], d: Deployment): Promise<number> {
  const minAvailable = u.replicas(d) - u.maxUnavailable(d);
  const available = u.sumAvailable(allRSs);
  if (available <= minAvailable) return 0;
  const totalToScaleDown = available - minAvailable;
  let total = 0;
  for (const rs of [...oldRSs].sort(u.byCreation)) {
    if (total >= totalToScaleDown) break;
    if (u.rsReplicas(rs) === 0) continue;
    const n = Math.min(u.rsReplicas(rs), totalToScaleDown - total);
    const size = u.rsReplicas(rs) - n;
    if (size > u.rsReplicas(rs)) throw new Error(`invalid request to scale down ${rs.metadata.name ?? ''} ${u.rsReplicas(rs)} -> ${size}`);
    await scaleReplicaSet(deps, rs, size, d);
    total += n;
  }
  return total;
}
