// The emulated kube-proxy a kubelet process runs beside its nodes: it watches Services and EndpointSlices
// through the apiserver (service-watch.ts) and answers the traffic of the pods this process runs — ClusterIPs
// and Service names from their exec sessions (cluster-network.ts) — counting the requests each pod serves
// (traffic.ts) — and listens on NodePorts (node-ports.ts) and on the pod-network port (pod-network.ts), through
// which the kube-proxies of other processes reach the pods this one runs. It never reads the store: what it knows is what its watches delivered.
import type { Pod } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import type { RestClient } from '@kemu/client';
import type { Registry } from 'prom-client';
import type { LoggedPod } from '../server/container-logs.ts';
import type { ShellNetwork } from '../shell/network.ts';
import { ClusterNetwork } from './cluster-network.ts';
import { NodePorts } from './node-ports.ts';
import { NodeAddresses, PodNetworkServer, dialPod } from './pod-network.ts';
import { watchServices } from './service-watch.ts';
import { ServiceTable, type EndpointTarget } from './service-table.ts';
import { PodTraffic } from './traffic.ts';

export interface KubeProxyDeps {
  client: RestClient;
  findPod(namespace: string, name: string): LoggedPod | undefined;
  clock: Clock;
  logger: Logger;
  registry?: Registry;
  /** Where NodePorts listen (flags.ts' nodePortAddresses); none: no NodePorts. */
  nodePortAddresses?: readonly string[];
  /** The node whose NodePorts this kube-proxy serves (externalTrafficPolicy Local keeps to its endpoints). */
  nodeName?: string;
  /** The pod network (pod-network.ts): this node's InternalIP and the port every node's listener is on (0: none). */
  podNetwork?: { address: string; port: number };
}

export class KubeProxy {
  readonly table = new ServiceTable();
  readonly traffic: PodTraffic;
  readonly network: ClusterNetwork;
  readonly nodePorts: NodePorts;
  readonly podNetwork: PodNetworkServer;

  constructor(private readonly deps: KubeProxyDeps) {
    this.traffic = new PodTraffic(deps.registry);
    const pn = deps.podNetwork;
    const nodes = new NodeAddresses(deps.client);
    const remote = pn?.port
      ? async (e: EndpointTarget & { nodeName: string }) => {
          const nodeIP = await nodes.internalIP(e.nodeName);
          return nodeIP ? dialPod(nodeIP, pn.port, e.ip, e.port) : undefined;
        }
      : undefined;
    this.network = new ClusterNetwork({ table: this.table, findPod: deps.findPod, traffic: this.traffic, clock: deps.clock, ...(remote ? { remote } : {}), ...(deps.nodeName ? { nodeName: deps.nodeName } : {}) });
    this.podNetwork = new PodNetworkServer((ip, port) => this.network.connectLocal(ip, port), deps.logger);
    this.nodePorts = new NodePorts(this.table, this.network, deps.nodePortAddresses ?? [], deps.logger, deps.nodeName);
    this.table.onServicesChanged = () => this.nodePorts.changed();
  }

  /** Starts the watches; resolves once Services and EndpointSlices have both been listed. */
  async start(signal: AbortSignal): Promise<void> {
    // Counters of pods this process no longer runs are dropped once a minute, so deleted pods leave no series.
    const prune = setInterval(() => this.traffic.prune((ns, name) => this.deps.findPod(ns, name) !== undefined), 60_000);
    prune.unref();
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(prune);
        this.nodePorts.stop();
        this.podNetwork.stop();
      },
      { once: true },
    );
    const pn = this.deps.podNetwork;
    if (pn?.port) await this.podNetwork.listen(pn.address, pn.port);
    await watchServices(this.deps.client, this.table, { clock: this.deps.clock, logger: this.deps.logger, signal });
    this.nodePorts.sync();
    this.deps.logger.info({}, 'kube-proxy: Services and EndpointSlices synced');
  }

  /** The network as a pod sees it from its containers. */
  networkFor(pod: Pod): ShellNetwork {
    return this.network.forPod({ namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name ?? '', ...(pod.status?.podIP ? { ip: pod.status.podIP } : {}) });
  }
}
