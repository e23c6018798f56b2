// Recreate (Kubernetes' deployment/recreate.go): scale every old replica set to zero, wait until none of
// their pods is left running, then create/scale the new replica set to spec.replicas.
import type { Deployment, Pod, ReplicaSet } from '@kemu/api';
import { syncRolloutStatus } from './progress.ts';
import { cleanupDeployment, getAllReplicaSetsAndSyncRevision, scaleReplicaSet, type DeploymentDeps } from './sync.ts';
import * as u from './util.ts';

export async function rolloutRecreate(
  deps: DeploymentDeps,
  d0: Deployment,
  rsList: ReplicaSet[],
  podsByRS: Map<string, Pod[]>,
): Promise<void> {
  let { newRS, oldRSs, d } = await getAllReplicaSetsAndSyncRevision(deps, d0, rsList, false);
  const all = () => [...oldRSs, ...(newRS ? [newRS] : [])];

  let scaledDown = false;
  const updatedOld: ReplicaSet[] = [];
  for (const rs of oldRSs) {
    if (u.rsReplicas(rs) === 0) {
      updatedOld.push(rs);
      continue;
    }
    const r = await scaleReplicaSet(deps, rs, 0, d);
    scaledDown ||= r.scaled;
    updatedOld.push(r.rs);
  }
  oldRSs = updatedOld;
  if (scaledDown) return syncRolloutStatus(deps, all(), newRS, d);
  if (oldPodsRunning(newRS, oldRSs, podsByRS)) return syncRolloutStatus(deps, all(), newRS, d);

  if (!newRS) ({ newRS, oldRSs, d } = await getAllReplicaSetsAndSyncRevision(deps, d, rsList, true));
  if (newRS) {
    const r = await scaleReplicaSet(deps, newRS, u.replicas(d), d);
    newRS = r.rs;
  }
  if (u.deploymentComplete(d, d.status ?? {})) await cleanupDeployment(deps, oldRSs, d);
  return syncRolloutStatus(deps, all(), newRS, d);
}

/** Any pod of an old replica set still exists and has not finished (including ones being deleted). */
export function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[], podsByRS: Map<string, Pod[]>): boolean {
  if (u.sumStatusReplicas(oldRSs) > 0) return true;
  for (const [uid, pods] of podsByRS) {
    if (uid === newRS?.metadata.uid) continue;
    for (const p of pods) {
      const phase = p.status?.phase;
      if (phase === 'Failed' || phase === 'Succeeded') continue;
      return true;
    }
  }
  return false;
}
