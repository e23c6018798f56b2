// The kubelet process: N emulated nodes sharing one client, one timer and ONE pod watch (pods with
// spec.nodeName set, dispatched by node name), plus one Node watch for re-registration and podCIDRs.
import { R, type Node, type Pod } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import { SharedInformerFactory, type DeletedFinalStateUnknown, type RestClient } from '@kemu/client';
import { NodeAgent } from './node/agent.ts';
import { nodeIdentities, type NodeConfig } from './node/status.ts';
import type { KubeletOptions } from './options.ts';
import { TimerQueue } from './timers.ts';

function unwrap<T>(obj: T | DeletedFinalStateUnknown<T>): T {
  const d = obj as Partial<DeletedFinalStateUnknown<T>>;
  return d.deletedFinalStateUnknown === true && d.obj !== undefined ? d.obj : (obj as T);
}

export interface KubeletDeps {
  client: RestClient;
  clock: Clock;
  logger: Logger;
}

export class Kubelet {
  readonly agents = new Map<string, NodeAgent>();
  readonly timers: TimerQueue;
  private readonly factory: SharedInformerFactory;

  constructor(
    private readonly opts: KubeletOptions,
    private readonly deps: KubeletDeps,
  ) {
    const f = opts.flags;
    this.timers = new TimerQueue(deps.clock);
    this.factory = new SharedInformerFactory(deps.client, { clock: deps.clock, logger: deps.logger });
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
        },
        // Spread the nodes' lease renewals evenly over the renew interval.
        ids.length === 1 ? 0 : id.index / ids.length,
      );
      this.agents.set(id.name, agent);
    }
  }

  /** Starts every node and the shared watches; resolves once the watches have synced. */
  async start(signal: AbortSignal): Promise<void> {
    const single = this.agents.size === 1 ? [...this.agents.keys()][0] : undefined;
    const pods = this.factory.informerFor<Pod>(R.pods, {
      fieldSelector: single !== undefined ? `spec.nodeName=${single}` : 'spec.nodeName!=',
    });
    const nodes = this.factory.informerFor<Node>(R.nodes, single !== undefined ? { fieldSelector: `metadata.name=${single}` } : {});
    const agentOf = (pod: Pod) => this.agents.get(pod.spec.nodeName ?? '');
    pods.addEventHandler({
      onAdd: (pod) => agentOf(pod)?.onPod(pod),
      onUpdate: (_old, pod) => agentOf(pod)?.onPod(pod),
      onDelete: (obj) => {
        const pod = unwrap<Pod>(obj);
        agentOf(pod)?.onPodDeleted(pod);
      },
    });
    nodes.addEventHandler({
      onAdd: (node) => this.agents.get(node.metadata.name ?? '')?.onNode(node),
      onUpdate: (_old, node) => this.agents.get(node.metadata.name ?? '')?.onNode(node),
      onDelete: (obj) => this.agents.get(unwrap<Node>(obj).metadata.name ?? '')?.onNode(undefined),
    });
    for (const a of this.agents.values()) a.start();
    this.factory.start(signal);
    await this.factory.waitForCacheSync(signal);
    this.deps.logger.info({ nodes: this.agents.size }, 'Kubelet started');
  }

  stop(): void {
    for (const a of this.agents.values()) a.stop();
    this.timers.stop();
  }
}
