// The kubelet process: N emulated nodes sharing one client, one timer and ONE pod watch (pods with
// spec.nodeName set, dispatched by node name), plus one Node watch for re-registration and podCIDRs.
import { R, type Node, type Pod } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import { EventRecorder, type RestClient } from '@kemu/client';
import { NodeAgent, Semaphore } from './node/agent.ts';
import type { LifecycleEnv } from './pods/lifecycle.ts';
import type { PodWorker } from './pods/worker.ts';
import { containerLogMaxBytes } from './logs/flags.ts';
import { nodeIdentities, type NodeConfig } from './node/status.ts';
import { EventQueue } from './event-queue.ts';
import type { EventSink } from './events.ts';
import type { KubeletOptions } from './options.ts';
import { loadImageCatalog } from './images/catalog.ts';
import type { KubeApi } from './api.ts';
import { TimerQueue } from './timers.ts';
import { runThinWatch } from './watch.ts';

export interface KubeletDeps {
  /** The process' client: the shared pod and node watches and the events (and every node's, without nodeClients). */
  client: RestClient;
  clock: Clock;
  logger: Logger;
  /** Each node's own client (TLS bootstrapping: its own certificate); a node not in it uses `client`. */
  nodeClients?: ReadonlyMap<string, KubeApi>;
  /** The process' timer heap, when the caller schedules on it too (certificate rotation); else a new one. */
  timers?: TimerQueue;
  /** Real time and the cluster network for containers whose command talks to the network (LifecycleEnv.live). */
  live?: LifecycleEnv['live'];
}

export class Kubelet {
  readonly agents = new Map<string, NodeAgent>();
  readonly timers: TimerQueue;
  readonly eventQueues: EventQueue[];

  constructor(
    private readonly opts: KubeletOptions,
    private readonly deps: KubeletDeps,
  ) {
    const f = opts.flags;
    this.timers = deps.timers ?? new TimerQueue(deps.clock);
    const config: NodeConfig = {
      labels: opts.labels,
      taints: opts.taints,
      capacity: {
        cpu: f['capacity-cpu'],
        memory: f['capacity-memory'],
        'ephemeral-storage': f['capacity-ephemeral-storage'],
        pods: String(f['max-pods']),
      },
      kubeletPort: f['secure-port'] || 10250,
    };
    const registrations = new Semaphore(16);
    const imageCatalog = opts.imageCatalog ?? loadImageCatalog(f['image-catalog']);
    const ids = nodeIdentities(opts.hostname, f['node-count'], f['node-ip'], f['pod-cidr']);
    // Events: a few recorders shared by all nodes (each event names its node as source host), so memory
    // for aggregation is bounded per process, not per node, and up to 16 nodes' events are written at once.
    // Each has a bounded queue in front (client-go's broadcaster drops beyond 1000 queued events too).
    this.eventQueues = Array.from({ length: Math.min(16, ids.length) }, () =>
      new EventQueue(new EventRecorder(deps.client, { component: 'kubelet' }, { clock: deps.clock, logger: deps.logger, cacheSize: ids.length === 1 ? 4096 : 256 })),
    );
    const recorder = (host: string, index: number): EventSink => {
      const r = this.eventQueues[index % this.eventQueues.length] as EventQueue;
      return { event: (obj, type, reason, message, o) => r.event(obj, type, reason, message, { fieldPath: o?.fieldPath, host }) };
    };
    for (const id of ids) {
      const agent = new NodeAgent(
        id,
        {
          client: deps.nodeClients?.get(id.name) ?? deps.client,
          timers: this.timers,
          clock: deps.clock,
          logger: deps.logger,
          config,
          heartbeat: {
            leaseDurationSeconds: f['node-lease-duration-seconds'],
            statusUpdateMs: f['node-status-update-frequency'],
            statusReportMs: f['node-status-report-frequency'],
          },
          imagePullMs: f['image-pull-delay'],
          containerLogMaxBytes: containerLogMaxBytes(f),
          preloadedImages: f['preloaded-images'],
          imageCatalog,
          imageBackOff: { initialMs: f['image-pull-backoff'], maxMs: f['image-pull-max-backoff'] },
          registerNode: f['register-node'],
          recorder,
          registrations,
          ...(deps.live ? { live: deps.live } : {}),
        },
        // Spread the nodes' lease renewals evenly over the renew interval.
        ids.length === 1 ? 0 : id.index / ids.length,
      );
      this.agents.set(id.name, agent);
    }
  }

  /** Starts every node and the shared watches; resolves once both watches have listed. */
  async start(signal: AbortSignal): Promise<void> {
    const single = this.agents.size === 1 ? [...this.agents.keys()][0] : undefined;
    const agentOf = (pod: Pod) => this.agents.get(pod.spec.nodeName ?? '');
    const deps = { clock: this.deps.clock, logger: this.deps.logger, signal };
    let podsSynced!: () => void;
    let nodesSynced!: () => void;
    const synced = Promise.all([new Promise<void>((r) => (podsSynced = r)), new Promise<void>((r) => (nodesSynced = r))]);
    for (const a of this.agents.values()) a.start();
    void runThinWatch<Pod>(this.deps.client, R.pods, single !== undefined ? `spec.nodeName=${single}` : 'spec.nodeName!=', (p) => p.metadata.uid ?? '', {
      upsert: (pod) => agentOf(pod)?.onPod(pod),
      delete: (pod) => agentOf(pod)?.onPodDeleted(pod),
      listed: (present) => {
        for (const a of this.agents.values()) a.dropPodsNotIn(present);
      },
      synced: () => podsSynced(),
    }, deps);
    void runThinWatch<Node>(this.deps.client, R.nodes, single !== undefined ? `metadata.name=${single}` : undefined, (n) => n.metadata.name ?? '', {
      upsert: (node) => this.agents.get(node.metadata.name ?? '')?.onNode(node),
      delete: (node) => this.agents.get(node.metadata.name ?? '')?.onNode(undefined),
      listed: (present) => {
        for (const a of this.agents.values()) if (!present.has(a.name)) a.onNode(undefined);
      },
      synced: () => nodesSynced(),
    }, deps);
    await Promise.race([synced, new Promise((r) => signal.addEventListener('abort', r, { once: true }))]);
    this.deps.logger.info({ nodes: this.agents.size }, 'Kubelet started');
  }

  /** A pod on any node this process emulates (the kubelet API of one process serves them all). */
  findPod(namespace: string, name: string): PodWorker | undefined {
    for (const a of this.agents.values()) {
      const w = a.findPod(namespace, name);
      if (w) return w;
    }
    return undefined;
  }

  stop(): void {
    for (const a of this.agents.values()) a.stop();
    this.timers.stop();
  }
}
