// The kubelet process: N emulated nodes sharing one client, one timer and ONE pod watch (pods with
// spec.nodeName set, dispatched by node name), plus one Node watch for re-registration and podCIDRs.
import { R, type Node, type Pod } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import { EventRecorder, type RestClient } from '@kemu/client';
import { NodeAgent, Semaphore } from './node/agent.ts';
import { nodeIdentities, type NodeConfig } from './node/status.ts';
import type { KubeletOptions } from './options.ts';
import { TimerQueue } from './timers.ts';
import { runThinWatch } from './watch.ts';

export interface KubeletDeps {
  client: RestClient;
  clock: Clock;
  logger: Logger;
}

export class Kubelet {
  readonly agents = new Map<string, NodeAgent>();
  readonly timers: TimerQueue;

  constructor(
    private readonly opts: KubeletOptions,
    private readonly deps: KubeletDeps,
  ) {
    const f = opts.flags;
    this.timers = new TimerQueue(deps.clock);
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
    // One recorder per node (the source host is the node's name), with a small aggregation cache each: a
    // node's own events are few, and a pod's repeat only while it crash-loops.
    const recorder = (host: string) =>
      new EventRecorder(deps.client, { component: 'kubelet', host }, { clock: deps.clock, logger: deps.logger, cacheSize: 64 });
    const ids = nodeIdentities(opts.hostname, f['node-count'], f['node-ip'], f['pod-cidr']);
    for (const id of ids) {
      const agent = new NodeAgent(
        id,
        {
          client: deps.client,
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
          preloadedImages: f['preloaded-images'],
          registerNode: f['register-node'],
          recorder,
          registrations,
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

  stop(): void {
    for (const a of this.agents.values()) a.stop();
    this.timers.stop();
  }
}
