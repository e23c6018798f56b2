// A pod's containers being stopped: the graceful stop on deletion or an active deadline (preStop, then the
// container's stop time, killed with 137 past the grace period; readiness still probed meanwhile), and the
// sidecars and debug containers that a pod which ended by itself stops.
import { Message, Reason } from '../events.ts';
import { earliest, type ContainerRuntime, type LifecycleEvents } from './container-runtime.ts';

/** Schedules the stop of every running container: after its preStop and stop time, within graceMs. */
export function beginStop(containers: ContainerRuntime[], now: number, graceMs: number, events?: LifecycleEvents): void {
  for (const c of containers) {
    if (c.state.kind === 'running') {
      events?.(c, 'Normal', Reason.Killing, Message.killing(c.name));
      const needed = c.preStopMs + c.behaviour.stopMs;
      c.stopAt = now + Math.min(needed, graceMs);
      // A container that would outlive the grace period is killed (SIGKILL: 137).
      c.stopExitCode = needed > graceMs ? 137 : 0;
    }
  }
}

/**
 * Stops the containers whose stop is due at `now`; returns when to look again, undefined once all have stopped.
 */
export function advanceStop(containers: ContainerRuntime[], now: number, podIP: string | undefined, events?: LifecycleEvents): number | undefined {
  let next: number | undefined;
  let probeNext: number | undefined;
  for (const c of containers) {
    const s = c.state;
    if (s.kind !== 'running') continue;
    const at = c.stopAt ?? now;
    if (at > now) {
      if (next === undefined || at < next) next = at;
      // Readiness is still probed while the container stops (liveness and startup are not).
      if (c.prober.active) {
        const step = c.prober.advance(now, podIP, true);
        for (const f of step.failures) events?.(c, 'Warning', Reason.Unhealthy, f.message);
        probeNext = earliest(probeNext, step.next !== undefined && step.next < at ? step.next : undefined);
      }
      continue;
    }
    const code = c.stopExitCode ?? 0;
    c.state = { kind: 'terminated', exitCode: code, reason: code === 0 ? 'Completed' : 'Error', startedAt: s.startedAt, finishedAt: at, containerID: s.containerID };
    c.process?.stop(at);
    c.process = undefined;
  }
  return next === undefined ? undefined : earliest(next, probeNext);
}

/** The pod's main containers have ended: its running sidecars stop (exit 0). */
export function stopSidecars(initContainers: ContainerRuntime[], now: number, events?: LifecycleEvents): void {
  for (const c of initContainers) {
    if (c.sidecar && c.state.kind === 'running') {
      events?.(c, 'Normal', Reason.Killing, Message.killing(c.name));
      c.state = { kind: 'terminated', exitCode: 0, reason: 'Completed', startedAt: c.state.startedAt, finishedAt: now, containerID: c.state.containerID };
      c.process?.stop(now);
      c.process = undefined;
    }
  }
}

/** A pod that ended kills the debug containers still running in it (exit 137, as SIGKILL). */
export function killEphemeral(ephemeralContainers: ContainerRuntime[], now: number): void {
  for (const c of ephemeralContainers) {
    const s = c.state;
    if (s.kind === 'running') {
      c.state = { kind: 'terminated', exitCode: 137, reason: 'Error', startedAt: s.startedAt, finishedAt: now, containerID: s.containerID };
      c.process?.stop(now);
      c.process = undefined;
    }
  }
}
