// Taking over the containers of a pod this node ran before the kubelet restarted: restart counts, back-off,
// last states and the states last reported, so that a kubelet restart does not restart a pod's containers.
import { parseTime, type ContainerStatus } from '@kemu/api';
import type { ContainerRuntime, LifecycleEnv, Terminated } from './container-runtime.ts';
import { backoffAfter } from './restart.ts';

/**
 * Applies the reported statuses to the containers of the same names. A running one is started again from
 * its startedAt (start: its process), a terminated one stays so, one that had exited and was waiting restarts now.
 */
export function adoptContainers(
  list: ContainerRuntime[],
  statuses: ContainerStatus[] | undefined,
  now: number,
  env: LifecycleEnv,
  start: (c: ContainerRuntime, startedAt: number, containerID: string) => void,
): void {
  for (const c of list) {
    const s = statuses?.find((x) => x.name === c.name);
    if (!s) continue;
    c.restartCount = s.restartCount ?? 0;
    if (c.restartCount > 0) c.nextBackoffMs = backoffAfter(c.restartCount);
    const last = s.lastState?.terminated;
    if (last) c.lastState = toTerminated(last, now);
    const run = s.state?.running;
    const term = s.state?.terminated;
    if (run) {
      const startedAt = Number.isFinite(parseTime(run.startedAt)) ? parseTime(run.startedAt) : now;
      const containerID = s.containerID ?? env.newContainerID();
      c.state = { kind: 'running', startedAt, exitAt: c.programExits || c.behaviour.runMs === null ? null : Math.max(startedAt + c.behaviour.runMs, now), containerID };
      // The emulated process is deterministic: started again from the same moment, it writes the same log.
      start(c, startedAt, containerID);
      // The kubelet's probe workers start over: readiness is probed again before the container counts as ready.
      c.prober.reset(startedAt);
      env.imagePulled(c.image);
    } else if (term) {
      c.state = toTerminated(term, now);
      env.imagePulled(c.image);
    } else if (c.lastState) {
      c.restartPending = true;
      c.state = { kind: 'waiting', reason: 'ContainerCreating', until: now };
    }
  }
}

function toTerminated(t: NonNullable<NonNullable<ContainerStatus['state']>['terminated']>, now: number): Terminated {
  const startedAt = parseTime(t.startedAt);
  const finishedAt = parseTime(t.finishedAt);
  return {
    kind: 'terminated',
    exitCode: t.exitCode,
    reason: t.reason ?? (t.exitCode === 0 ? 'Completed' : 'Error'),
    startedAt: Number.isFinite(startedAt) ? startedAt : now,
    finishedAt: Number.isFinite(finishedAt) ? finishedAt : now,
    containerID: t.containerID ?? '',
  };
}
