// Starting a container's process: a new log instance, and the program run either in virtual time
// (logs/process.ts) or, when it talks to the network in a kubelet process, live (logs/live-process.ts).
import { LiveProcess } from '../logs/live-process.ts';
import { ContainerProcess } from '../logs/process.ts';
import type { ShellNetwork } from '../shell/network.ts';
import type { ContainerRuntime, LifecycleEnv, PodIdentity } from './container-runtime.ts';

/** The pod around the process; podIP and wake are read when needed (the IP can come after the containers). */
export interface SpawnContext {
  pod: PodIdentity;
  env: LifecycleEnv;
  podIP(): string | undefined;
  /** Has the pod's worker look at it now (a live process exited). */
  wake(): void;
}

/** Starts the container's process and its log instance (stopping the one before). */
export function spawn(c: ContainerRuntime, startedAt: number, containerID: string, ctx: SpawnContext): void {
  c.process?.stop(startedAt);
  c.process = undefined;
  // A program that never writes (pause, busybox without a command) keeps nothing: its log reads empty.
  if (c.program.silent && !c.programExits) return;
  const log = c.logs.start(containerID);
  // command.ts' rule: a plain init container running something unknown completes at once.
  const live = ctx.env.live;
  if (c.program.live && live) {
    // Read at each request: a pod taken over after a kubelet restart gets its IP after its containers.
    const client = () => {
      const ip = ctx.podIP();
      return { namespace: ctx.pod.namespace, name: ctx.pod.name, ...(ip ? { ip } : {}) };
    };
    // Before the kube-proxy is up no name resolves, as with a cluster DNS not yet answering.
    const network: ShellNetwork = { request: (req, signal) => live.network(client())?.request(req, signal) ?? Promise.resolve({ kind: 'error', error: 'unknown-host' }) };
    c.process = new LiveProcess(c.program.live(startedAt, ctx.podIP(), network), log, () => live.now(), () => ctx.wake());
    return;
  }
  c.process = new ContainerProcess(c.program.start(startedAt, ctx.podIP()), startedAt, log, c.init && !c.sidecar);
}
