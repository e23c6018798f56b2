// Rollout progress (Kubernetes' deployment/progress.go): the Progressing condition — ReplicaSetUpdated while
// pods move, NewReplicaSetAvailable when complete, ProgressDeadlineExceeded when nothing moved for
// progressDeadlineSeconds — and a timed requeue so a stuck rollout is noticed without any event.
import { R, type Condition, type Deployment, type ReplicaSet } from '@kemu/api';
import type { DeploymentDeps } from './sync.ts';
import { calculateStatus, deploymentKey } from './sync.ts';
import * as u from './util.ts';

export async function syncRolloutStatus(deps: DeploymentDeps, allRSs: ReplicaSet[], newRS: ReplicaSet | undefined, d: Deployment): Promise<void> {
  const now = deps.clock.now();
  const status = calculateStatus(allRSs, newRS, d, now);
  if (!u.hasProgressDeadline(d)) u.removeCondition(status, 'Progressing');
  const current = u.getCondition(d.status, 'Progressing');
  const isComplete = status.replicas === status.updatedReplicas && current?.reason === u.REASONS.NewReplicaSetAvailable;
  if (u.hasProgressDeadline(d) && !isComplete) {
    const name = newRS?.metadata.name ?? '';
    if (u.deploymentComplete(d, status)) {
      const msg = newRS ? `ReplicaSet "${name}" has successfully progressed.` : 'Deployment has successfully progressed.';
      u.setCondition(status, u.newCondition('Progressing', 'True', u.REASONS.NewReplicaSetAvailable, msg, now));
    } else if (u.deploymentProgressing(d, status)) {
      const msg = newRS ? `ReplicaSet "${name}" is progressing.` : 'Deployment is progressing.';
      const cond: Condition = u.newCondition('Progressing', 'True', u.REASONS.ReplicaSetUpdated, msg, now);
      // Progress refreshes lastUpdateTime (the deadline's start) but keeps the transition time.
      if (current?.status === 'True' && current.lastTransitionTime) cond.lastTransitionTime = current.lastTransitionTime;
      u.removeCondition(status, 'Progressing');
      u.setCondition(status, cond);
    } else if (u.deploymentTimedOut(d, status, now)) {
      const msg = newRS ? `ReplicaSet "${name}" has timed out progressing.` : `Deployment "${d.metadata.name ?? ''}" has timed out progressing.`;
      u.setCondition(status, u.newCondition('Progressing', 'False', u.REASONS.ProgressDeadlineExceeded, msg, now));
    }
  }
  const failure = allRSs.map((rs) => rs.status?.conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True')).find((c) => c);
  if (failure) u.setCondition(status, { ...failure, lastUpdateTime: failure.lastTransitionTime });
  else u.removeCondition(status, 'ReplicaFailure');

  if (u.statusEqual(d.status, status)) {
    requeueStuckDeployment(deps, d, status, now);
    return;
  }
  await deps.client.updateStatus<Deployment>(R.deployments, d.metadata.namespace, { ...d, status });
}

/** Looks again when the progress deadline would pass, if the rollout is still moving toward it. */
function requeueStuckDeployment(deps: DeploymentDeps, d: Deployment, status: Deployment['status'] & object, now: number): void {
  const cond = u.getCondition(status, 'Progressing');
  if (!u.hasProgressDeadline(d) || !cond) return;
  if (u.deploymentComplete(d, status) || cond.reason === u.REASONS.ProgressDeadlineExceeded) return;
  const from = Date.parse(cond.lastUpdateTime ?? '');
  if (Number.isNaN(from)) return;
  const after = from + (d.spec.progressDeadlineSeconds ?? 600) * 1000 - now;
  deps.enqueueAfter(deploymentKey(d), after < 1000 ? 0 : after + 1000);
}
