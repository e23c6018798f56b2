// What follows a container's exit, as the kubelet decides it: whether it restarts (the pod's restartPolicy;
// sidecars always, ephemeral containers never, init containers only after a failure), and the restart's
// CrashLoopBackOff delay (10 s doubling to 300 s, reset after 10 min of running).
import { Message, Reason, podRef } from '../events.ts';
import type { ContainerRuntime, LifecycleEvents, PodIdentity, Terminated } from './container-runtime.ts';

export const BACKOFF_INITIAL_MS = 10_000;
export const BACKOFF_MAX_MS = 300_000;
/** A container that ran this long before exiting restarts without back-off (the kubelet's 2 × max back-off). */
export const BACKOFF_RESET_MS = 600_000;

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

/** Does the container start again after exiting with exitCode? initRestartable: a failed init container may. */
export function willRestart(c: ContainerRuntime, exitCode: number, initRestartable: boolean, restartPolicy: RestartPolicy): boolean {
  if (c.ephemeral) return false;
  if (c.sidecar) return true;
  if (c.init) return exitCode !== 0 && initRestartable;
  if (restartPolicy === 'Always') return true;
  if (restartPolicy === 'OnFailure') return exitCode !== 0;
  return false;
}

/** The back-off a container that has restarted `restartCount` times waits before its next restart. */
export function backoffAfter(restartCount: number): number {
  return Math.min(BACKOFF_INITIAL_MS * 2 ** (restartCount - 1), BACKOFF_MAX_MS);
}

/** Puts a container that exited (term) and will restart in wait: at once, or in CrashLoopBackOff. */
export function scheduleRestart(c: ContainerRuntime, term: Terminated, pod: PodIdentity, events?: LifecycleEvents): void {
  c.lastState = term;
  if (term.finishedAt - term.startedAt >= BACKOFF_RESET_MS) c.nextBackoffMs = 0;
  const delay = c.nextBackoffMs;
  c.nextBackoffMs = delay === 0 ? BACKOFF_INITIAL_MS : Math.min(delay * 2, BACKOFF_MAX_MS);
  c.restartPending = true;
  if (delay === 0) {
    c.state = { kind: 'waiting', reason: 'ContainerCreating', until: term.finishedAt };
    return;
  }
  const ref = podRef(pod.name, pod.namespace, pod.uid);
  c.state = {
    kind: 'waiting',
    reason: 'CrashLoopBackOff',
    message: `back-off ${delay / 1000}s restarting failed container=${c.name} pod=${ref}`,
    until: term.finishedAt + delay,
  };
  events?.(c, 'Warning', Reason.BackOff, Message.backOff(c.name, ref));
}
