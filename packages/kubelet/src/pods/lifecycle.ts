// A pod's emulated life as a pure state machine: advance(now) applies every transition due at `now` and
// returns when the next one is due, so a FakeClock (or a shared timer) drives it and tests never sleep.
// Stages follow the kubelet: pull (per imagePullPolicy) → init containers one by one → containers, probed
// (prober.ts) → exits, liveness kills and restarts with CrashLoopBackOff → graceful stop on deletion → terminal phase.
import { parseTime, type Container, type ContainerStatus, type EphemeralContainer, type PodPhase, type PodSpec, type PodStatus } from '@kemu/api';
import { Message, Reason, podRef, type EventType } from '../events.ts';
import { EXIT_CODE, RUN_SECONDS, annotation, containerBehaviour, preStopMs, type Behaviour } from './command.ts';
import { containerProgram, type ContainerProgram } from './program.ts';
import { ContainerLogs } from '../logs/store.ts';
import { ContainerProcess, type RunningProcess } from '../logs/process.ts';
import { LiveProcess } from '../logs/live-process.ts';
import type { ShellNetwork } from '../shell/network.ts';
import { probePlan } from './probe.ts';
import type { PullFailure } from '../images/registry.ts';
import type { RegistryAuth } from '../images/credentials.ts';
import { beginPull, recordPulled } from './pull.ts';
import { ContainerProber } from './prober.ts';

export const BACKOFF_INITIAL_MS = 10_000;
export const BACKOFF_MAX_MS = 300_000;
/** A container that ran this long before exiting restarts without back-off (the kubelet's 2 × max back-off). */
export const BACKOFF_RESET_MS = 600_000;
/** The exit code of a container killed after a failed liveness or startup probe. */
export const PROBE_KILL_EXIT_CODE = 137;

export type ContainerRunState =
  | {
      kind: 'waiting';
      reason: string;
      message?: string;
      /** when the pull or back-off ends */ until?: number;
      /** set while pulling: since when */ pullFrom?: number;
      /** the image is ready (pulled or present): the container starts at `until`; otherwise a back-off or a retry ends then */ imageReady?: boolean;
    }
  | {
      kind: 'running';
      startedAt: number;
      /** When it exits by itself; null: not known (it runs until stopped, or its script has not said yet). */
      exitAt: number | null;
      containerID: string;
      /** The exit code its script ends with (else the behaviour's). */
      exitCode?: number;
    }
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
  /** An ephemeral (debug) container: started once, never restarted, no probes; the pod's phase ignores it. */
  ephemeral?: boolean;
  behaviour: Behaviour;
  state: ContainerRunState;
  lastState?: Terminated;
  restartCount: number;
  /** Back-off before the next restart (0 until the first restart). */
  nextBackoffMs: number;
  pullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  prober: ContainerProber;
  /** A failed liveness/startup probe's kill: when the container is gone (it then exits 137). */
  killAt?: number;
  /** The pod's terminationGracePeriodSeconds, in ms (a probe's own overrides it for its kill). */
  graceMs: number;
  preStopMs: number;
  /** While stopping: when the container is gone, and the exit code it gets. */
  stopAt?: number;
  stopExitCode?: number;
  /** The next start is a restart (counted in restartCount when it happens). */
  restartPending?: boolean;
  /** The image back-off after a failed pull: since when, for how long, and the failure ("ErrImagePull: <error>"). */
  pullBackOff?: { at: number; delayMs: number; lastError: string };
  /** What runs in it (shell/), its logs per instance, and the running instance's process. */
  program: ContainerProgram;
  /** The program decides when it exits and with what code (no run-seconds/exit-code annotation overrides it). */
  programExits: boolean;
  logs: ContainerLogs;
  process?: RunningProcess;
}

export interface LifecycleEnv {
  imagePullMs: number;
  hasImage(image: string): boolean;
  imagePulled(image: string): void;
  /** The size node.status.images reports for an image (for the Pulled event). */
  imageSize?(image: string): number;
  newContainerID(): string;
  /** Why a pull of the image fails (the image catalogue and its registries); absent: every pull succeeds. */
  pullFailure?(image: string, auth: RegistryAuth | undefined): PullFailure | undefined;
  /** The image back-off's first delay (also the retry of a pod whose start failed) and cap; default 10 s / 300 s. */
  imageBackOff?: { initialMs: number; maxMs: number };
  /** --container-log-max-size in bytes (default 10Mi). */
  containerLogMaxBytes?: number;
  /**
   * Real time and the cluster network (a kubelet process): a command that talks to the network runs live
   * (logs/live-process.ts). `network` is undefined until the kube-proxy is up. Absent: everything runs in
   * virtual time, its wget/curl ending at once.
   */
  live?: { now(): number; network(client: { namespace: string; name: string; ip?: string }): ShellNetwork | undefined };
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
  readonly ephemeralContainers: ContainerRuntime[] = [];
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
    const { spec, annotations, pod, env } = this;
    const hasInit = (spec.initContainers ?? []).length > 0;
    const program = containerProgram(c, {
      name: pod.name,
      namespace: pod.namespace,
      uid: pod.uid,
      ...(annotations ? { annotations } : {}),
      ...(spec.hostname ? { hostname: spec.hostname } : {}),
      ...(spec.subdomain ? { subdomain: spec.subdomain } : {}),
    });
    const overridden = annotation(annotations, RUN_SECONDS, c.name) !== undefined || annotation(annotations, EXIT_CODE, c.name) !== undefined;
    return {
      name: c.name,
      image: c.image ?? '',
      init,
      sidecar: init && c.restartPolicy === 'Always',
      ...(ephemeral ? { ephemeral } : {}),
      behaviour: initBehaviour(containerBehaviour(c, annotations), init && c.restartPolicy !== 'Always'),
      state: { kind: 'waiting', reason: (init || hasInit) && !ephemeral ? 'PodInitializing' : 'ContainerCreating' },
      restartCount: 0,
      nextBackoffMs: 0,
      // Unset only outside the apiserver (which defaults it): read as IfNotPresent.
      pullPolicy: c.imagePullPolicy ?? 'IfNotPresent',
      // Plain init containers have no probes (validation forbids them); sidecars and containers do.
      prober: new ContainerProber((init && c.restartPolicy !== 'Always') || ephemeral ? [] : (['startup', 'liveness', 'readiness'] as const).map((k) => probePlan(c, k, annotations))),
      graceMs: (spec.terminationGracePeriodSeconds ?? 30) * 1000,
      preStopMs: preStopMs(c),
      program,
      programExits: program.scripted && !overridden,
      logs: new ContainerLogs(env.containerLogMaxBytes),
    };
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
          const containerID = s.containerID ?? this.env.newContainerID();
          c.state = { kind: 'running', startedAt, exitAt: c.programExits || c.behaviour.runMs === null ? null : Math.max(startedAt + c.behaviour.runMs, now), containerID };
          // The emulated process is deterministic: started again from the same moment, it writes the same log.
          this.spawn(c, startedAt, containerID);
          // The kubelet's probe workers start over: readiness is probed again before the container counts as ready.
          c.prober.reset(startedAt);
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
    apply(this.ephemeralContainers, previous.ephemeralContainerStatuses);
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
    for (const c of [...this.initContainers, ...this.containers, ...this.ephemeralContainers]) {
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
      this.stopSidecars(now);
      this.stopEphemeral(now);
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

  /** Starts the container's process and its log instance. */
  private spawn(c: ContainerRuntime, startedAt: number, containerID: string): void {
    c.process?.stop(startedAt);
    c.process = undefined;
    // A program that never writes (pause, busybox without a command) keeps nothing: its log reads empty.
    if (c.program.silent && !c.programExits) return;
    const log = c.logs.start(containerID);
    // command.ts' rule: a plain init container running something unknown completes at once.
    const live = this.env.live;
    if (c.program.live && live) {
      // Read at each request: a pod taken over after a kubelet restart gets its IP after its containers.
      const client = () => ({ namespace: this.pod.namespace, name: this.pod.name, ...(this.podIP ? { ip: this.podIP } : {}) });
      // Before the kube-proxy is up no name resolves, as with a cluster DNS not yet answering.
      const network: ShellNetwork = { request: (req, signal) => live.network(client())?.request(req, signal) ?? Promise.resolve({ kind: 'error', error: 'unknown-host' }) };
      c.process = new LiveProcess(c.program.live(startedAt, this.podIP, network), log, () => live.now(), () => this.wake?.());
      return;
    }
    c.process = new ContainerProcess(c.program.start(startedAt, this.podIP), startedAt, log, c.init && !c.sidecar);
  }

  private willRestart(c: ContainerRuntime, exitCode: number, initRestartable: boolean): boolean {
    if (c.ephemeral) return false;
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
        c.process?.stop(now);
        c.process = undefined;
      }
    }
  }

  /** A pod that ended kills the debug containers still running in it (exit 137, as SIGKILL). */
  private stopEphemeral(now: number): void {
    for (const c of this.ephemeralContainers) {
      const s = c.state;
      if (s.kind === 'running') {
        c.state = { kind: 'terminated', exitCode: 137, reason: 'Error', startedAt: s.startedAt, finishedAt: now, containerID: s.containerID };
        c.process?.stop(now);
        c.process = undefined;
      }
    }
  }

  private advanceStopping(now: number): number | undefined {
    let next: number | undefined;
    let probeNext: number | undefined;
    for (const c of [...this.initContainers, ...this.containers, ...this.ephemeralContainers]) {
      const s = c.state;
      if (s.kind !== 'running') continue;
      const at = c.stopAt ?? now;
      if (at > now) {
        if (next === undefined || at < next) next = at;
        // Readiness is still probed while the container stops (liveness and startup are not).
        if (c.prober.active) {
          const step = c.prober.advance(now, this.podIP, true);
          for (const f of step.failures) this.events?.(c, 'Warning', Reason.Unhealthy, f.message);
          probeNext = earliest(probeNext, step.next !== undefined && step.next < at ? step.next : undefined);
        }
        continue;
      }
      const code = c.stopExitCode ?? 0;
      c.state = { kind: 'terminated', exitCode: code, reason: code === 0 ? 'Completed' : 'Error', startedAt: s.startedAt, finishedAt: at, containerID: s.containerID };
      c.process?.stop(at);
      c.process = undefined;
    }
    if (next !== undefined) return earliest(next, probeNext);
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

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined || a < b ? a : b;
}

function initDone(c: ContainerRuntime): boolean {
  // A sidecar lets the next init container start once it has started (its startup probe passed).
  if (c.sidecar) return (c.state.kind === 'running' && c.prober.started()) || c.restartCount > 0;
  return c.state.kind === 'terminated' && c.state.exitCode === 0;
}

/** A plain init container whose behaviour is unknown (no command we read) completes at once with 0. */
function initBehaviour(b: Behaviour, plainInit: boolean): Behaviour {
  if (plainInit && b.runMs === null) return { ...b, runMs: 0, exitCode: 0 };
  return b;
}
