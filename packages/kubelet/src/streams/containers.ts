// The running container an exec or attach is about, and what lives as long as that container instance: its
// file system (shared by every exec into it) and, for a container whose main process is a shell reading its
// stdin (`stdin: true`, as `kubectl run -it … -- sh` makes), that shell, which attach sessions talk to.
import type { Container, EphemeralContainer, Pod } from '@kemu/api';
import type { LoggedPod } from '../server/container-logs.ts';
import type { ContainerRuntime } from '../pods/lifecycle.ts';
import { banner, containerArgv, containerShellContext } from '../pods/program.ts';
import { realClock } from '@kemu/base';
import { SHELLS } from '../pods/command.ts';
import { ContainerFs } from '../shell/filesystem.ts';
import { ShellSession, type ShellContext } from '../shell/interpreter.ts';
import { ProcessTable, imageProcesses } from '../shell/ps.ts';
import type { ShellNetwork } from '../shell/network.ts';

/** A pod this process runs, with a way to have its worker look at it again at once (a container ended). */
export interface StreamedPod extends LoggedPod {
  wake?(): void;
}

export interface RunningContainer {
  pod: StreamedPod;
  spec: Container;
  runtime: ContainerRuntime;
  containerID: string;
  state: ContainerState;
}

export interface ContainerState {
  fs: ContainerFs;
  context: ShellContext;
  /** Its PID namespace (a targeting debug container shares its target's). */
  processes: ProcessTable;
  /** The files each mount path holds (streams/mounts.ts), to drop those its source no longer has. */
  mounted: Map<string, Set<string>>;
  /** The main process' shell, when it reads stdin (created at the first attach). */
  mainShell?: ShellSession;
  /** The PIDs of its main process(es): gone from a shared PID namespace when the container ends. */
  mainPids: number[];
}

/** Instances kept at most (oldest dropped): a file system outlives nothing but its container, and few are exec'd. */
const MAX_KEPT = 512;

export class ContainerStates {
  private readonly byID = new Map<string, ContainerState>();

  /** `network`: what wget and curl in a pod's exec sessions reach (the kubelet's kube-proxy); none: they end silently. */
  constructor(readonly network?: (pod: Pod) => ShellNetwork | undefined) {}

  get(id: string, make: () => ContainerState): ContainerState {
    let s = this.byID.get(id);
    if (!s) {
      s = make();
      this.byID.set(id, s);
      if (this.byID.size > MAX_KEPT) this.byID.delete(this.byID.keys().next().value as string);
    }
    return s;
  }
}

function podContext(pod: Pod) {
  return { name: pod.metadata.name ?? '', ...(pod.spec.hostname ? { hostname: pod.spec.hostname } : {}), ...(pod.spec.subdomain ? { subdomain: pod.spec.subdomain } : {}) };
}

/** The named container when it is running, else the kubelet's error (`container not found ("x")`). */
export function runningContainer(pod: StreamedPod, name: string, states: ContainerStates): RunningContainer | { error: string } {
  const found = lookup(pod, name);
  if (!found || found.runtime.state.kind !== 'running') return { error: `container not found (${JSON.stringify(name)})` };
  const { runtime, spec } = found;
  const { containerID } = found.runtime.state;
  return { pod, spec, runtime, containerID, state: stateOf(pod, runtime, spec, states) };
}

function lookup(pod: StreamedPod, name: string): { runtime: ContainerRuntime; spec: EphemeralContainer } | undefined {
  const lc = pod.lifecycle;
  const runtime = lc ? [...lc.containers, ...lc.initContainers, ...lc.ephemeralContainers].find((c) => c.name === name) : undefined;
  const s = pod.current.spec;
  const spec = [...s.containers, ...(s.initContainers ?? []), ...(s.ephemeralContainers ?? [])].find((c) => c.name === name);
  return runtime && spec ? { runtime, spec } : undefined;
}

/** The instance's state, made at its first use: file system, shell context and processes (PID 1: its main process). */
function stateOf(pod: StreamedPod, runtime: ContainerRuntime, spec: EphemeralContainer, states: ContainerStates): ContainerState {
  const run = runtime.state;
  if (run.kind !== 'running') throw new Error('not running');
  return states.get(run.containerID, () => {
    // A debug container with a running target joins its process namespace.
    const target = spec.targetContainerName ? lookup(pod, spec.targetContainerName) : undefined;
    const processes = target && target.runtime.state.kind === 'running' ? stateOf(pod, target.runtime, target.spec, states).processes : new ProcessTable();
    const argv = containerArgv(spec, podContext(pod.current));
    const main = argv.length > 0 ? [argv.join(' ')] : imageProcesses(spec.image ?? '');
    const handles = servesSignals(spec, argv);
    const containerID = run.containerID;
    const mainPids = main.map((args, k) =>
      processes.spawn(args, k === 0 && handles ? (sig) => TERMINATING.has(sig) && endRuntime(pod, runtime, containerID, 0, realClock.now()) : undefined),
    );
    const context = containerShellContext(spec, podContext(pod.current), run.startedAt, pod.lifecycle?.podIP);
    const fs = new ContainerFs(context.files);
    const network = states.network?.(pod.current);
    return { fs, processes, mainPids, mounted: new Map(), context: { ...context, fs, processes, ...(network ? { network } : {}) } };
  });
}

/** Signals a server's main process handles by shutting down (it then exits 0). */
const TERMINATING = new Set([2, 3, 15]);
const SERVERS = new Set(['nginx', 'httpd', 'apache2', 'redis-server', 'postgres', 'mysqld', 'mongod', 'memcached']);

/** A server (a well-known image run as is, or one of their programs) handles TERM; sleep, sh and unknown programs do not. */
function servesSignals(spec: Container, argv: readonly string[]): boolean {
  if (argv.length === 0) return banner(spec) !== undefined;
  const first = argv[0] ?? '';
  return SERVERS.has(first.slice(first.lastIndexOf('/') + 1));
}

function endRuntime(pod: StreamedPod, runtime: ContainerRuntime, containerID: string, code: number, now: number): boolean {
  const s = runtime.state;
  if (s.kind !== 'running' || s.containerID !== containerID) return false;
  s.exitAt = now;
  s.exitCode = code;
  pod.wake?.();
  return true;
}

/** The main process is a shell reading stdin: `stdin: true` and `sh` with no script (or no command: busybox's is sh). */
export function mainReadsStdin(c: RunningContainer): boolean {
  if (!c.spec.stdin) return false;
  const argv = containerArgv(c.spec, podContext(c.pod.current));
  if (argv.length === 0) return /(^|\/)(busybox|alpine|ubuntu|debian|centos|fedora)(:|@|$)/.test(c.spec.image ?? '');
  const name = (argv[0] ?? '').slice((argv[0] ?? '').lastIndexOf('/') + 1);
  return SHELLS.has(name) && !argv.slice(1).some((a) => !a.startsWith('-') || /^-[a-z]*c/.test(a));
}

/** The main process is a shell running a script (`sh -c '…'`): one SIGINT from its terminal ends. */
export function runsShellScript(c: RunningContainer): boolean {
  const argv = containerArgv(c.spec, podContext(c.pod.current));
  const name = (argv[0] ?? '').slice((argv[0] ?? '').lastIndexOf('/') + 1);
  return SHELLS.has(name) && argv.slice(1).some((a) => /^-[a-z]*c/.test(a));
}

/** Ends the running container now with `code` (its main process exited), and has its pod worker notice. */
export function endContainer(c: RunningContainer, code: number, now: number): void {
  endRuntime(c.pod, c.runtime, c.containerID, code, now);
  // Its processes leave the PID namespace (a debug container's shell no longer shows in its target's `ps`).
  for (const pid of c.state.mainPids) c.state.processes.exit(pid);
}
