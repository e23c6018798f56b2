// A pod's emulated life as a pure state machine: advance(now) applies every transition due at `now` and
// returns when the next one is due, so a FakeClock (or a shared timer) drives it and tests never sleep.
// Stages follow the kubelet: pull (per imagePullPolicy, pull.ts) → init containers one by one → containers,
// probed (prober.ts) → exits, liveness kills and restarts with CrashLoopBackOff (restart.ts) → graceful stop on
// deletion (stopping.ts) → terminal phase. The containers themselves: container-runtime.ts; their processes:
// spawn.ts; a pod taken over after a kubelet restart: adopt.ts.
import { parseTime, type Container, type EphemeralContainer, type PodPhase, type PodSpec, type PodStatus } from '@kemu/api';
import { Message, Reason } from '../events.ts';
import type { RegistryAuth } from '../images/credentials.ts';
import { adoptContainers } from './adopt.ts';
import { earliest, newContainerRuntime, type ContainerRuntime, type LifecycleEnv, type LifecycleEvents, type PodIdentity, type Terminated } from './container-runtime.ts';
import { beginPull, recordPulled } from './pull.ts';
import { scheduleRestart, willRestart, type RestartPolicy } from './restart.ts';
import { spawn } from './spawn.ts';
import { advanceStop, beginStop, killEphemeral, stopSidecars } from './stopping.ts';

// The lifecycle's containers and environment are read by the worker, status and servers through this module.
export type { ContainerRunState, ContainerRuntime, LifecycleEnv, LifecycleEvents, PodIdentity, Terminated } from './container-runtime.ts';

/** The exit code of a container killed after a failed liveness or startup probe. */
export const PROBE_KILL_EXIT_CODE = 137;

const DEADLINE_MESSAGE = 'Pod was active on the node longer than the specified deadline';

export class PodLifecycle {
  readonly containers: ContainerRuntime[];
  readonly initContainers: ContainerRuntime[];
  readonly ephemeralContainers: ContainerRuntime[] = [];
  startTime: number;
  private readonly restartPolicy: RestartPolicy;
  private deadlineAt: number | null;
  private readonly activeDeadlineMs: number | null;
  /** Set when the pod is being stopped (deletion or active deadline). */
  stopping = false;
  /** Terminal phase once reached: nothing runs any more. */
  terminalPhase: 'Succeeded' | 'Failed' | null = null;
  reason?: string;
  message?: string;
  /** The pod's IP, for the probers' messages (`dial tcp 10.244.0.5:80: …`). */
  podIP?: string;
  /** The registries the pod's imagePullSecrets have credentials for (set by its worker). */
  pullAuth?: RegistryAuth;
  /** Has the pod's worker look at it now (a live process exited); set by the worker. */
  wake?: () => void;

  constructor(
    readonly pod: PodIdentity,
    private readonly spec: PodSpec,
    private readonly annotations: Record<string, string> | undefined,
    private readonly env: LifecycleEnv,
    now: number,
    private readonly events?: LifecycleEvents,
  ) {
    this.startTime = now;
    this.restartPolicy = spec.restartPolicy ?? 'Always';
    this.initContainers = (spec.initContainers ?? []).map((c) => this.make(c, true));
    this.containers = spec.containers.map((c) => this.make(c, false));
    for (const c of spec.ephemeralContainers ?? []) this.addEphemeral(c);
    this.activeDeadlineMs = spec.activeDeadlineSeconds !== undefined ? spec.activeDeadlineSeconds * 1000 : null;
    this.deadlineAt = this.activeDeadlineMs !== null ? now + this.activeDeadlineMs : null;
  }

  /**
   * An ephemeral container added through pods/ephemeralcontainers (known ones are ignored). As the kubelet does,
   * it is started at the next sync, even before initialization completes, and never restarted.
   */
  addEphemeral(c: EphemeralContainer): boolean {
    if (this.terminalPhase || this.ephemeralContainers.some((e) => e.name === c.name)) return false;
    this.ephemeralContainers.push(this.make(c, false, true));
    return true;
  }

  private make(c: Container, init: boolean, ephemeral = false): ContainerRuntime {
    return newContainerRuntime(c, init, ephemeral, { pod: this.pod, spec: this.spec, annotations: this.annotations, env: this.env });
  }

  /**
   * Takes over a pod this node ran before the kubelet restarted: its start time, restart counts and the
   * containers' states as last reported, so a kubelet restart does not restart the pod's containers.
   */
  adopt(previous: PodStatus, now: number): void {
    const start = parseTime(previous.startTime);
    if (!Number.isFinite(start)) return;
    this.startTime = start;
    if (this.activeDeadlineMs !== null) this.deadlineAt = start + this.activeDeadlineMs;
    const spawnAgain = (c: ContainerRuntime, startedAt: number, containerID: string) => this.spawn(c, startedAt, containerID);
    adoptContainers(this.initContainers, previous.initContainerStatuses, now, this.env, spawnAgain);
    adoptContainers(this.containers, previous.containerStatuses, now, this.env, spawnAgain);
    adoptContainers(this.ephemeralContainers, previous.ephemeralContainerStatuses, now, this.env, spawnAgain);
  }

  /** True once every init container has completed (sidecars: started). */
  initialized(): boolean {
    return this.initContainers.every((c) => initDone(c));
  }

  /** Everything has stopped: the pod is terminal (and, when deleted, may now be removed). */
  finished(): boolean {
    return this.terminalPhase !== null;
  }

  phase(): PodPhase {
    if (this.terminalPhase) return this.terminalPhase;
    if (!this.initialized()) return 'Pending';
    const everStarted = this.containers.some((c) => c.state.kind !== 'waiting' || c.restartCount > 0 || c.lastState);
    return everStarted ? 'Running' : 'Pending';
  }

  // A terminating container stays ready until it has stopped, as with a real kubelet (kubernetes#129552);
  // endpoints still drop it because the endpoint controllers read the pod's deletionTimestamp.
  isReady(c: ContainerRuntime): boolean {
    return c.state.kind === 'running' && c.prober.ready();
  }

  isStarted(c: ContainerRuntime): boolean {
    return c.state.kind === 'running' && c.prober.started();
  }

  /** Begins a graceful stop (the pod was deleted): containers stop after their preStop and stop time. */
  requestStop(now: number, graceMs: number): void {
    if (this.stopping || this.terminalPhase) return;
    this.stopping = true;
    beginStop(this.all(), now, graceMs, this.events);
  }

  /** Applies every transition due at `now`; returns the time of the next one (undefined: none scheduled). */
  advance(now: number): number | undefined {
    if (this.terminalPhase) return undefined;
    if (!this.stopping && this.deadlineAt !== null && now >= this.deadlineAt) {
      this.reason = 'DeadlineExceeded';
      this.message = DEADLINE_MESSAGE;
      this.events?.(undefined, 'Normal', Reason.DeadlineExceeded, DEADLINE_MESSAGE);
      this.requestStop(now, 0);
    }
    if (this.stopping) return this.advanceStopping(now);

    let next: number | undefined = this.deadlineAt ?? undefined;
    const wake = (t: number | undefined) => {
      if (t !== undefined && t > now && (next === undefined || t < next)) next = t;
    };

    // Ephemeral containers start even while init containers run (computePodActions).
    for (const c of this.ephemeralContainers) wake(this.stepContainer(c, now, false));

    // Init containers, one at a time; each must succeed (sidecars only need to start).
    for (const c of this.initContainers) {
      if (initDone(c)) {
        if (c.sidecar) wake(this.stepProbed(c, now, true));
        continue;
      }
      wake(this.stepProbed(c, now, this.restartPolicy !== 'Never' || c.sidecar));
      if (this.terminalPhase) return undefined;
      if (!initDone(c)) return next;
    }

    for (const c of this.containers) {
      if (c.state.kind === 'waiting' && c.state.reason === 'PodInitializing') c.state = { kind: 'waiting', reason: 'ContainerCreating' };
      wake(this.stepProbed(c, now, false));
    }

    // Terminal when no main container is running or will run again.
    const settled = this.containers.every((c) => c.state.kind === 'terminated');
    if (settled) {
      const ok = this.containers.every((c) => c.state.kind === 'terminated' && c.state.exitCode === 0);
      this.terminalPhase = ok ? 'Succeeded' : 'Failed';
      stopSidecars(this.initContainers, now, this.events);
      killEphemeral(this.ephemeralContainers, now);
      return undefined;
    }
    return next;
  }

  /** Moves a container along and runs its probes; a liveness/startup failure schedules its kill. */
  private stepProbed(c: ContainerRuntime, now: number, initRestartable: boolean): number | undefined {
    let next = this.stepContainer(c, now, initRestartable);
    // A kill that is due at once ends the container in this step; its restart may start a new one to probe.
    for (let guard = 0; guard < 10 && c.state.kind === 'running' && c.killAt === undefined && c.prober.active; guard++) {
      const step = c.prober.advance(now, this.podIP, this.stopping);
      for (const f of step.failures) this.events?.(c, 'Warning', Reason.Unhealthy, f.message);
      next = earliest(next, step.next);
      if (!step.kill) break;
      const kind = step.kill.kind === 'startup' ? 'startup' : 'liveness';
      this.events?.(c, 'Normal', Reason.Killing, Message.probeKilling(c.name, kind, this.willRestart(c, PROBE_KILL_EXIT_CODE, initRestartable)));
      const graceMs = step.kill.terminationGraceMs ?? c.graceMs;
      c.killAt = now + Math.min(c.preStopMs + c.behaviour.stopMs, graceMs);
      next = this.stepContainer(c, now, initRestartable);
    }
    return next;
  }

  /** Moves one container along; returns when it next needs attention. */
  private stepContainer(c: ContainerRuntime, now: number, initRestartable: boolean): number | undefined {
    for (let guard = 0; guard < 100; guard++) {
      const s = c.state;
      if (s.kind === 'waiting') {
        if (s.until === undefined) {
          const blocked = beginPull(c, now, this.env, this.events, this.pullAuth);
          if (blocked !== undefined) return blocked;
          continue;
        }
        if (s.until > now) return s.until;
        if (!s.imageReady) {
          // A back-off or an ErrImageNeverPull retry ended: the image is looked at (and with Always pulled) again.
          c.state = { kind: 'waiting', reason: c.init ? 'PodInitializing' : 'ContainerCreating' };
          continue;
        }
        recordPulled(c, s, now, this.env, this.events);
        if (c.restartPending) {
          c.restartPending = false;
          c.restartCount++;
        }
        const exitAt = c.programExits || c.behaviour.runMs === null ? null : now + c.behaviour.runMs;
        const containerID = this.env.newContainerID();
        c.state = { kind: 'running', startedAt: now, exitAt, containerID };
        this.spawn(c, now, containerID);
        c.prober.reset(now);
        this.events?.(c, 'Normal', Reason.Created, Message.created(c.name));
        this.events?.(c, 'Normal', Reason.Started, Message.started(c.name));
        continue;
      }
      if (s.kind === 'running') {
        // A program that decides its own exit is looked ahead of, a minute at a time.
        let recheckAt: number | undefined;
        if (c.programExits && s.exitAt === null && c.process) {
          const outlook = c.process.outlook(now);
          if ('exitAt' in outlook) {
            s.exitAt = outlook.exitAt;
            s.exitCode = outlook.exitCode;
          } else recheckAt = outlook.recheckAt;
        }
        const endAt = Math.min(s.exitAt ?? Infinity, c.killAt ?? Infinity);
        if (endAt === Infinity) return recheckAt;
        if (endAt > now) return earliest(endAt, recheckAt);
        const killed = c.killAt !== undefined && c.killAt <= (s.exitAt ?? Infinity);
        c.killAt = undefined;
        const exitCode = killed ? PROBE_KILL_EXIT_CODE : (s.exitCode ?? c.behaviour.exitCode);
        c.process?.stop(endAt);
        c.process = undefined;
        const term: Terminated = {
          kind: 'terminated',
          exitCode,
          reason: exitCode === 0 ? 'Completed' : 'Error',
          startedAt: s.startedAt,
          finishedAt: endAt,
          containerID: s.containerID,
        };
        c.state = term;
        if (!this.willRestart(c, exitCode, initRestartable)) {
          if (c.init && exitCode !== 0) {
            // restartPolicy Never: a failed init container fails the pod.
            this.terminalPhase = 'Failed';
            this.reason = undefined;
          }
          return undefined;
        }
        scheduleRestart(c, term, this.pod, this.events);
        continue;
      }
      return undefined;
    }
    return undefined;
  }

  /** Starts the container's process and its log instance. */
  private spawn(c: ContainerRuntime, startedAt: number, containerID: string): void {
    spawn(c, startedAt, containerID, { pod: this.pod, env: this.env, podIP: () => this.podIP, wake: () => this.wake?.() });
  }

  private willRestart(c: ContainerRuntime, exitCode: number, initRestartable: boolean): boolean {
    return willRestart(c, exitCode, initRestartable, this.restartPolicy);
  }

  private all(): ContainerRuntime[] {
    return [...this.initContainers, ...this.containers, ...this.ephemeralContainers];
  }

  private advanceStopping(now: number): number | undefined {
    const next = advanceStop(this.all(), now, this.podIP, this.events);
    if (next !== undefined) return next;
    const ok = this.reason !== 'DeadlineExceeded' && this.containers.every((c) => c.state.kind === 'terminated' && c.state.exitCode === 0);
    this.terminalPhase = ok ? 'Succeeded' : 'Failed';
    return undefined;
  }
}

function initDone(c: ContainerRuntime): boolean {
  // A sidecar lets the next init container start once it has started (its startup probe passed).
  if (c.sidecar) return (c.state.kind === 'running' && c.prober.started()) || c.restartCount > 0;
  return c.state.kind === 'terminated' && c.state.exitCode === 0;
}
