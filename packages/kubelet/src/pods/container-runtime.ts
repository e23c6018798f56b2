// A container as a pod's lifecycle runs it: its run state (waiting → running → terminated), restart count and
// back-off, probes, program and logs; and what the lifecycle needs from its node (LifecycleEnv). A new one is
// made from the pod's spec here: behaviour from its command and annotations, probes, pull policy, grace period.
import type { Container, PodSpec } from '@kemu/api';
import type { EventType } from '../events.ts';
import type { RegistryAuth } from '../images/credentials.ts';
import type { PullFailure } from '../images/registry.ts';
import { ContainerLogs } from '../logs/store.ts';
import type { RunningProcess } from '../logs/process.ts';
import type { ShellNetwork } from '../shell/network.ts';
import { EXIT_CODE, RUN_SECONDS, annotation, containerBehaviour, preStopMs, type Behaviour } from './command.ts';
import { probePlan } from './probe.ts';
import { ContainerProber } from './prober.ts';
import { containerProgram, type ContainerProgram } from './program.ts';

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

/** What a new container is made from besides its own spec: the pod and its node. */
export interface ContainerSource {
  pod: PodIdentity;
  spec: PodSpec;
  annotations: Record<string, string> | undefined;
  env: LifecycleEnv;
}

/** A container of the pod, waiting to start: an init container (a sidecar with restartPolicy Always), or ephemeral. */
export function newContainerRuntime(c: Container, init: boolean, ephemeral: boolean, from: ContainerSource): ContainerRuntime {
  const { spec, annotations, pod, env } = from;
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

/** A plain init container whose behaviour is unknown (no command we read) completes at once with 0. */
function initBehaviour(b: Behaviour, plainInit: boolean): Behaviour {
  if (plainInit && b.runMs === null) return { ...b, runMs: 0, exitCode: 0 };
  return b;
}

/** The earlier of two wake-up times (undefined: none). */
export function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined || a < b ? a : b;
}
