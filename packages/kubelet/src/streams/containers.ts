// The running container an exec or attach is about, and what lives as long as that container instance: its
// file system (shared by every exec into it) and, for a container whose main process is a shell reading its
// stdin (`stdin: true`, as `kubectl run -it … -- sh` makes), that shell, which attach sessions talk to.
import type { Container, Pod } from '@kemu/api';
import type { LoggedPod } from '../server/container-logs.ts';
import type { ContainerRuntime } from '../pods/lifecycle.ts';
import { containerArgv, containerShellContext } from '../pods/program.ts';
import { SHELLS } from '../pods/command.ts';
import { ContainerFs } from '../shell/filesystem.ts';
import { ShellSession, type ShellContext } from '../shell/interpreter.ts';
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
  /** The main process' shell, when it reads stdin (created at the first attach). */
  mainShell?: ShellSession;
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
  const lc = pod.lifecycle;
  const runtime = lc ? [...lc.containers, ...lc.initContainers].find((c) => c.name === name) : undefined;
  const spec = [...pod.current.spec.containers, ...(pod.current.spec.initContainers ?? [])].find((c) => c.name === name);
  if (!runtime || !spec || runtime.state.kind !== 'running') return { error: `container not found (${JSON.stringify(name)})` };
  const { containerID, startedAt } = runtime.state;
  const state = states.get(containerID, () => {
    const context = containerShellContext(spec, podContext(pod.current), startedAt, lc?.podIP);
    const fs = new ContainerFs(context.files);
    const network = states.network?.(pod.current);
    return { fs, context: { ...context, fs, ...(network ? { network } : {}) } };
  });
  return { pod, spec, runtime, containerID, state };
}

/** The main process is a shell reading stdin: `stdin: true` and `sh` with no script (or no command: busybox's is sh). */
export function mainReadsStdin(c: RunningContainer): boolean {
  if (!c.spec.stdin) return false;
  const argv = containerArgv(c.spec, podContext(c.pod.current));
  if (argv.length === 0) return /(^|\/)(busybox|alpine|ubuntu|debian|centos|fedora)(:|@|$)/.test(c.spec.image ?? '');
  const name = (argv[0] ?? '').slice((argv[0] ?? '').lastIndexOf('/') + 1);
  return SHELLS.has(name) && !argv.slice(1).some((a) => !a.startsWith('-') || /^-[a-z]*c/.test(a));
}

/** Ends the running container now with `code` (its main process exited), and has its pod worker notice. */
export function endContainer(c: RunningContainer, code: number, now: number): void {
  const s = c.runtime.state;
  if (s.kind !== 'running' || s.containerID !== c.containerID) return;
  s.exitAt = now;
  s.exitCode = code;
  c.pod.wake?.();
}
