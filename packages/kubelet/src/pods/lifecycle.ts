// A pod's emulated life as a pure state machine: advance(now) applies every transition due at `now` and
// returns when the next one is due, so a FakeClock (or a shared timer) drives it and tests never sleep.
// Stages follow the kubelet: pull → init containers one by one → containers (probes' initial delays for
// readiness) → exits and restarts with CrashLoopBackOff → graceful stop on deletion → terminal phase.
import { parseTime, type Container, type ContainerStatus, type PodPhase, type PodSpec, type PodStatus } from '@kemu/api';
import { Message, Reason, podRef, type EventType } from '../events.ts';
import { containerBehaviour, preStopMs, type Behaviour } from './command.ts';

export const BACKOFF_INITIAL_MS = 10_000;
export const BACKOFF_MAX_MS = 300_000;
/** A container that ran this long before exiting restarts without back-off (the kubelet's 2 × max back-off). */
export const BACKOFF_RESET_MS = 600_000;

export type ContainerRunState =
  | { kind: 'waiting'; reason: string; message?: string; /** when the pull or back-off ends */ until?: number; /** set while pulling: since when */ pullFrom?: number }
  | { kind: 'running'; startedAt: number; exitAt: number | null; containerID: string }
  | Terminated;

export interface Terminated {
  kind: 'terminated';
  exitCode: number;
  reason: string;
  startedAt: number;
  finishedAt: number;
  containerID: string;
}

export interface ContainerRuntime {
  name: string;
  image: string;
  init: boolean;
  /** An init container with restartPolicy Always (a sidecar): it keeps running beside the main containers. */
  sidecar: boolean;
  behaviour: Behaviour;
  state: ContainerRunState;
  lastState?: Terminated;
  restartCount: number;
  /** Back-off before the next restart (0 until the first restart). */
  nextBackoffMs: number;
  readyDelayMs: number;
  startupDelayMs: number;
  preStopMs: number;
  /** While stopping: when the container is gone, and the exit code it gets. */
  stopAt?: number;
  stopExitCode?: number;
  /** The next start is a restart (counted in restartCount when it happens). */
  restartPending?: boolean;
}

export interface LifecycleEnv {
  imagePullMs: number;
  hasImage(image: string): boolean;
  imagePulled(image: string): void;
  /** The size node.status.images reports for an image (for the Pulled event). */
  imageSize?(image: string): number;
  newContainerID(): string;
}

/** Where a lifecycle records its Events: about a container, or (container undefined) the pod. */
export type LifecycleEvents = (container: ContainerRuntime | undefined, type: EventType, reason: string, message: string) => void;

export interface PodIdentity {
  name: string;
  namespace: string;
  uid: string;
}

const DEADLINE_MESSAGE = 'Pod was active on the node longer than the specified deadline';

export class PodLifecycle {
  readonly containers: ContainerRuntime[];
  readonly initContainers: ContainerRuntime[];
  startTime: number;
  private readonly restartPolicy: 'Always' | 'OnFailure' | 'Never';
  private deadlineAt: number | null;
  private readonly activeDeadlineMs: number | null;
  /** Set when the pod is being stopped (deletion or active deadline). */
  stopping = false;
  /** Terminal phase once reached: nothing runs any more. */
  terminalPhase: 'Succeeded' | 'Failed' | null = null;
  reason?: string;
  message?: string;

  constructor(
    readonly pod: PodIdentity,
    spec: PodSpec,
    annotations: Record<string, string> | undefined,
    private readonly env: LifecycleEnv,
    now: number,
    private readonly events?: LifecycleEvents,
  ) {
    this.startTime = now;
    this.restartPolicy = spec.restartPolicy ?? 'Always';
    const hasInit = (spec.initContainers ?? []).length > 0;
    const make = (c: Container, init: boolean): ContainerRuntime => ({
      name: c.name,
      image: c.image ?? '',
      init,
      sidecar: init && c.restartPolicy === 'Always',
      behaviour: initBehaviour(containerBehaviour(c, annotations), init && c.restartPolicy !== 'Always'),
      state: { kind: 'waiting', reason: init || hasInit ? 'PodInitializing' : 'ContainerCreating' },
      restartCount: 0,
      nextBackoffMs: 0,
      readyDelayMs: (c.readinessProbe?.initialDelaySeconds ?? 0) * 1000,
      startupDelayMs: (c.startupProbe?.initialDelaySeconds ?? 0) * 1000,
      preStopMs: preStopMs(c),
    });
    this.initContainers = (spec.initContainers ?? []).map((c) => make(c, true));
    this.containers = spec.containers.map((c) => make(c, false));
    this.activeDeadlineMs = spec.activeDeadlineSeconds !== undefined ? spec.activeDeadlineSeconds * 1000 : null;
    this.deadlineAt = this.activeDeadlineMs !== null ? now + this.activeDeadlineMs : null;
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
    const apply = (list: ContainerRuntime[], statuses: ContainerStatus[] | undefined) => {
      for (const c of list) {
        const s = statuses?.find((x) => x.name === c.name);
        if (!s) continue;
        c.restartCount = s.restartCount ?? 0;
        if (c.restartCount > 0) c.nextBackoffMs = Math.min(BACKOFF_INITIAL_MS * 2 ** (c.restartCount - 1), BACKOFF_MAX_MS);
        const last = s.lastState?.terminated;
        if (last) c.lastState = toTerminated(last, now);
        const run = s.state?.running;
        const term = s.state?.terminated;
        if (run) {
          const startedAt = Number.isFinite(parseTime(run.startedAt)) ? parseTime(run.startedAt) : now;
          c.state = { kind: 'running', startedAt, exitAt: c.behaviour.runMs === null ? null : Math.max(startedAt + c.behaviour.runMs, now), containerID: s.containerID ?? this.env.newContainerID() };
          this.env.imagePulled(c.image);
        } else if (term) {
          c.state = toTerminated(term, now);
          this.env.imagePulled(c.image);
        } else if (c.lastState) {
          c.restartPending = true;
          c.state = { kind: 'waiting', reason: 'ContainerCreating', until: now };
        }
      }
    };
    apply(this.initContainers, previous.initContainerStatuses);
    apply(this.containers, previous.containerStatuses);
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
  isReady(c: ContainerRuntime, now: number): boolean {
    return c.state.kind === 'running' && now >= c.state.startedAt + Math.max(c.readyDelayMs, c.startupDelayMs);
  }

  isStarted(c: ContainerRuntime, now: number): boolean {
    return c.state.kind === 'running' && now >= c.state.startedAt + c.startupDelayMs;
  }

  /** Begins a graceful stop (the pod was deleted): containers stop after their preStop and stop time. */
  requestStop(now: number, graceMs: number): void {
    if (this.stopping || this.terminalPhase) return;
    this.stopping = true;
    for (const c of [...this.initContainers, ...this.containers]) {
      if (c.state.kind === 'running') {
        this.events?.(c, 'Normal', Reason.Killing, Message.killing(c.name));
        const needed = c.preStopMs + c.behaviour.stopMs;
        c.stopAt = now + Math.min(needed, graceMs);
        // A container that would outlive the grace period is killed (SIGKILL: 137).
        c.stopExitCode = needed > graceMs ? 137 : 0;
      }
    }
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

    // Init containers, one at a time; each must succeed (sidecars only need to start).
    for (const c of this.initContainers) {
      if (initDone(c)) {
        if (c.sidecar) wake(this.stepContainer(c, now, true));
        continue;
      }
      wake(this.stepContainer(c, now, this.restartPolicy !== 'Never' || c.sidecar));
      if (this.terminalPhase) return undefined;
      if (!initDone(c)) return next;
    }

    for (const c of this.containers) {
      if (c.state.kind === 'waiting' && c.state.reason === 'PodInitializing') c.state = { kind: 'waiting', reason: 'ContainerCreating' };
      wake(this.stepContainer(c, now, false));
      if (c.state.kind === 'running') {
        wake(c.state.startedAt + Math.max(c.readyDelayMs, c.startupDelayMs));
        wake(c.state.startedAt + c.startupDelayMs);
      }
    }

    // Terminal when no main container is running or will run again.
    const settled = this.containers.every((c) => c.state.kind === 'terminated');
    if (settled) {
      const ok = this.containers.every((c) => c.state.kind === 'terminated' && c.state.exitCode === 0);
      this.terminalPhase = ok ? 'Succeeded' : 'Failed';
      this.stopSidecars(now);
      return undefined;
    }
    return next;
  }

  /** Moves one container along; returns when it next needs attention. */
  private stepContainer(c: ContainerRuntime, now: number, initRestartable: boolean): number | undefined {
    for (let guard = 0; guard < 100; guard++) {
      const s = c.state;
      if (s.kind === 'waiting') {
        if (s.until === undefined) {
          const pulled = c.lastState !== undefined || this.env.hasImage(c.image);
          const until = now + (pulled ? 0 : this.env.imagePullMs);
          c.state = { kind: 'waiting', reason: c.init ? 'PodInitializing' : 'ContainerCreating', until };
          if (!pulled) {
            c.state.pullFrom = now;
            this.events?.(c, 'Normal', Reason.Pulling, Message.pulling(c.image));
          }
          continue;
        }
        if (s.until > now) return s.until;
        if (this.events) {
          if (s.pullFrom !== undefined) {
            const size = this.env.imageSize?.(c.image) ?? 0;
            this.events(c, 'Normal', Reason.Pulled, Message.pulled(c.image, s.until - s.pullFrom, now - s.pullFrom, size));
          } else {
            this.events(c, 'Normal', Reason.Pulled, Message.alreadyPresent(c.image));
          }
        }
        this.env.imagePulled(c.image);
        if (c.restartPending) {
          c.restartPending = false;
          c.restartCount++;
        }
        const exitAt = c.behaviour.runMs === null ? null : now + c.behaviour.runMs;
        c.state = { kind: 'running', startedAt: now, exitAt, containerID: this.env.newContainerID() };
        this.events?.(c, 'Normal', Reason.Created, Message.created(c.name));
        this.events?.(c, 'Normal', Reason.Started, Message.started(c.name));
        continue;
      }
      if (s.kind === 'running') {
        if (s.exitAt === null) return undefined;
        if (s.exitAt > now) return s.exitAt;
        const exitCode = c.behaviour.exitCode;
        const term: Terminated = {
          kind: 'terminated',
          exitCode,
          reason: exitCode === 0 ? 'Completed' : 'Error',
          startedAt: s.startedAt,
          finishedAt: s.exitAt,
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
        c.lastState = term;
        if (term.finishedAt - term.startedAt >= BACKOFF_RESET_MS) c.nextBackoffMs = 0;
        const delay = c.nextBackoffMs;
        c.nextBackoffMs = delay === 0 ? BACKOFF_INITIAL_MS : Math.min(delay * 2, BACKOFF_MAX_MS);
        c.restartPending = true;
        if (delay === 0) {
          c.state = { kind: 'waiting', reason: 'ContainerCreating', until: term.finishedAt };
        } else {
          const ref = podRef(this.pod.name, this.pod.namespace, this.pod.uid);
          c.state = {
            kind: 'waiting',
            reason: 'CrashLoopBackOff',
            message: `back-off ${delay / 1000}s restarting failed container=${c.name} pod=${ref}`,
            until: term.finishedAt + delay,
          };
          this.events?.(c, 'Warning', Reason.BackOff, Message.backOff(c.name, ref));
        }
        continue;
      }
      return undefined;
    }
    return undefined;
  }

  private willRestart(c: ContainerRuntime, exitCode: number, initRestartable: boolean): boolean {
    if (c.sidecar) return true;
    if (c.init) return exitCode !== 0 && initRestartable;
    if (this.restartPolicy === 'Always') return true;
    if (this.restartPolicy === 'OnFailure') return exitCode !== 0;
    return false;
  }

  private stopSidecars(now: number): void {
    for (const c of this.initContainers) {
      if (c.sidecar && c.state.kind === 'running') {
        this.events?.(c, 'Normal', Reason.Killing, Message.killing(c.name));
        c.state = { kind: 'terminated', exitCode: 0, reason: 'Completed', startedAt: c.state.startedAt, finishedAt: now, containerID: c.state.containerID };
      }
    }
  }

  private advanceStopping(now: number): number | undefined {
    let next: number | undefined;
    for (const c of [...this.initContainers, ...this.containers]) {
      const s = c.state;
      if (s.kind !== 'running') continue;
      const at = c.stopAt ?? now;
      if (at > now) {
        if (next === undefined || at < next) next = at;
        continue;
      }
      const code = c.stopExitCode ?? 0;
      c.state = { kind: 'terminated', exitCode: code, reason: code === 0 ? 'Completed' : 'Error', startedAt: s.startedAt, finishedAt: at, containerID: s.containerID };
    }
    if (next !== undefined) return next;
    const ok = this.reason !== 'DeadlineExceeded' && this.containers.every((c) => c.state.kind === 'terminated' && c.state.exitCode === 0);
    this.terminalPhase = ok ? 'Succeeded' : 'Failed';
    return undefined;
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

function initDone(c: ContainerRuntime): boolean {
  if (c.sidecar) return c.state.kind === 'running' || c.restartCount > 0;
  return c.state.kind === 'terminated' && c.state.exitCode === 0;
}

/** A plain init container whose behaviour is unknown (no command we read) completes at once with 0. */
function initBehaviour(b: Behaviour, plainInit: boolean): Behaviour {
  if (plainInit && b.runMs === null) return { ...b, runMs: 0, exitCode: 0 };
  return b;
}
