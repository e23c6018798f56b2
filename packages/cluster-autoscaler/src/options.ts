// cluster-autoscaler's flags: the real names, defaults and usage strings (durations in ms). Flags kemu's autoscaler
// does not act on are accepted so real manifests run, and listed in docs/cluster-autoscaler.md.
import { LOGGING_FORMAT_FLAG, type FlagValues } from '@kemu/base';
import { leaderElectionFlags } from '@kemu/client';

export const FLAGS = {
  kubeconfig: { type: 'string', default: '', usage: 'Path to kubeconfig file with authorization and master location information.' },
  kubernetes: { type: 'string', default: '', usage: 'Kubernetes master location. Leave blank for default' },
  'cloud-provider': { type: 'string', default: 'kemu', usage: 'Cloud provider type. Available values: [kemu]' },
  'cloud-config': { type: 'string', default: '', usage: 'The path to the cloud provider configuration file.  Empty string for no configuration file.' },
  nodes: { type: 'stringArray', default: [], usage: 'sets min,max size and other configuration data for a node group in a format accepted by cloud provider. Can be used multiple times. Format: <min>:<max>:<other...>' },
  namespace: { type: 'string', default: 'kube-system', usage: 'Namespace in which cluster-autoscaler run.' },
  'scan-interval': { type: 'duration', default: 10_000, usage: 'How often cluster is reevaluated for scale up or down' },
  'scale-down-enabled': { type: 'bool', default: true, usage: 'Should CA scale down the cluster' },
  'scale-down-delay-after-add': { type: 'duration', default: 600_000, usage: 'How long after scale up that scale down evaluation resumes' },
  'scale-down-delay-after-delete': { type: 'duration', default: 0, usage: 'How long after node deletion that scale down evaluation resumes, defaults to scanInterval' },
  'scale-down-delay-after-failure': { type: 'duration', default: 180_000, usage: 'How long after scale down failure that scale down evaluation resumes' },
  'scale-down-unneeded-time': { type: 'duration', default: 600_000, usage: 'How long a node should be unneeded before it is eligible for scale down' },
  'scale-down-unready-time': { type: 'duration', default: 1_200_000, usage: 'How long an unready node should be unneeded before it is eligible for scale down' },
  'scale-down-utilization-threshold': { type: 'float', default: 0.5, usage: 'The maximum value between the sum of cpu requests and sum of memory requests of all pods running on the node divided by node\'s corresponding allocatable resource, below which a node can be considered for scale down' },
  'max-node-provision-time': { type: 'duration', default: 900_000, usage: 'The default maximum time CA waits for node to be provisioned - the value can be overridden per node group' },
  'max-graceful-termination-sec': { type: 'int', default: 600, usage: 'Maximum number of seconds CA waits for pod termination when trying to scale down a node.' },
  'max-pod-eviction-time': { type: 'duration', default: 120_000, usage: 'Maximum time CA tries to evict a pod before giving up' },
  'max-nodes-total': { type: 'int', default: 0, usage: 'Maximum number of nodes in all node groups. Cluster autoscaler will not grow the cluster beyond this number.' },
  'max-empty-bulk-delete': { type: 'int', default: 10, usage: 'Maximum number of empty nodes that can be deleted at the same time.' },
  expander: { type: 'string', default: 'random', usage: 'Type of node group expander to be used in scale up. Available values: [random,most-pods,least-waste]. Specifying multiple values separated by commas will call the expanders in succession until there is only one option remaining.' },
  'skip-nodes-with-system-pods': { type: 'bool', default: true, usage: 'If true cluster autoscaler will never delete nodes with pods from kube-system (except for DaemonSet or mirror pods)' },
  'skip-nodes-with-local-storage': { type: 'bool', default: true, usage: 'If true cluster autoscaler will never delete nodes with pods with local storage, e.g. EmptyDir or HostPath' },
  'balance-similar-node-groups': { type: 'bool', default: false, usage: 'Detect similar node groups and balance the number of nodes between them (accepted, not acted on by kemu)' },
  'write-status-configmap': { type: 'bool', default: true, usage: 'Should CA write status information to a configmap' },
  'status-config-map-name': { type: 'string', default: 'cluster-autoscaler-status', usage: 'Status configmap name' },
  address: { type: 'string', default: ':8085', usage: 'The address to expose prometheus metrics.' },
  ...leaderElectionFlags('cluster-autoscaler'),
  v: { type: 'int', default: 0, usage: 'number for the log level verbosity' },
  ...LOGGING_FORMAT_FLAG,
} as const;

export type AutoscalerFlags = Omit<FlagValues<typeof FLAGS>, '_'>;

export interface NodeGroupSpec {
  min: number;
  max: number;
  name: string;
}

/** One --nodes value, "<min>:<max>:<name>"; throws with the autoscaler's wording. */
export function parseNodeGroupSpec(value: string): NodeGroupSpec {
  const parts = value.split(':');
  if (parts.length !== 3) throw new Error(`failed to set nodes: incorrect nodes specification: ${value}`);
  const [minS = '', maxS = '', name = ''] = parts;
  const min = /^\d+$/.test(minS) ? Number(minS) : NaN;
  const max = /^\d+$/.test(maxS) ? Number(maxS) : NaN;
  if (Number.isNaN(min)) throw new Error(`failed to set min size: ${minS}, expected integer`);
  if (Number.isNaN(max)) throw new Error(`failed to set max size: ${maxS}, expected integer`);
  if (max < min) throw new Error(`max size must be greater or equal to min size`);
  if (max < 1) throw new Error(`max size must be greater or equal to 1`);
  if (!name) throw new Error(`failed to set nodes: incorrect nodes specification: ${value}`);
  return { min, max, name };
}

/** --address "host:port" or ":port" → where the metrics/health server listens. */
export function parseAddress(value: string): { host: string; port: number } {
  const i = value.lastIndexOf(':');
  const host = i <= 0 ? '0.0.0.0' : value.slice(0, i);
  const port = Number(value.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --address ${value}: want host:port`);
  return { host, port };
}
