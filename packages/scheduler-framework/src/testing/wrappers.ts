// Builders for nodes and pods in tests (like Kubernetes' st.MakePod()/st.MakeNode()), and a tiny harness that
// runs a profile against an in-memory cache.
import type { Affinity, Container, Node, Pod, ResourceList, Taint, Toleration, TopologySpreadConstraint } from '@kemu/api';
import { silentLogger } from '@kemu/base';
import { realClock } from '@kemu/base';
import { SchedulerCache } from '../cache/cache.ts';
import type { Handle, SchedulerClient, SelectorLister } from '../framework/interface.ts';
import { PodInfo } from '../framework/pod-info.ts';

export interface NodeOpts {
  labels?: Record<string, string>;
  taints?: Taint[];
  unschedulable?: boolean;
  allocatable?: ResourceList;
  images?: { names: string[]; sizeBytes: number }[];
}

export function makeNode(name: string, o: NodeOpts = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(o.labels ?? {}) } },
    spec: { taints: o.taints, unschedulable: o.unschedulable },
    status: { allocatable: o.allocatable ?? { cpu: '4', memory: '8Gi', pods: '110' }, images: o.images },
  };
}

export interface PodOpts {
  namespace?: string;
  labels?: Record<string, string>;
  requests?: ResourceList;
  containers?: Container[];
  initContainers?: Container[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  tolerations?: Toleration[];
  priority?: number;
  preemptionPolicy?: 'Never' | 'PreemptLowerPriority';
  topologySpreadConstraints?: TopologySpreadConstraint[];
  hostPorts?: number[];
  schedulerName?: string;
  image?: string;
  overhead?: ResourceList;
  uid?: string;
}

let uidCounter = 0;

export function makePod(name: string, o: PodOpts = {}): Pod {
  const containers: Container[] = o.containers ?? [
    {
      name: 'c',
      image: o.image ?? 'registry.k8s.io/pause:3.9',
      resources: o.requests ? { requests: o.requests } : {},
      ports: o.hostPorts?.map((p) => ({ containerPort: p, hostPort: p })),
    },
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: o.namespace ?? 'default', uid: o.uid ?? `uid-${name}-${++uidCounter}`, labels: o.labels },
    spec: {
      containers,
      initContainers: o.initContainers,
      nodeName: o.nodeName,
      nodeSelector: o.nodeSelector,
      affinity: o.affinity,
      tolerations: o.tolerations,
      priority: o.priority,
      preemptionPolicy: o.preemptionPolicy,
      topologySpreadConstraints: o.topologySpreadConstraints,
      schedulerName: o.schedulerName ?? 'default-scheduler',
      overhead: o.overhead,
    },
    status: { phase: 'Pending' },
  };
}

export const pi = (pod: Pod): PodInfo => new PodInfo(pod);

/** A cache holding these nodes and (assigned) pods. */
export function cacheWith(nodes: Node[], pods: Pod[] = []): SchedulerCache {
  const c = new SchedulerCache();
  for (const n of nodes) c.addNode(n);
  for (const p of pods) c.addOrUpdatePod(p);
  return c;
}

export interface FakeClientCalls {
  binds: { namespace: string; name: string; node: string }[];
  deletes: string[];
  statusPatches: { pod: string; status: Record<string, unknown> }[];
}

export function fakeClient(opts: { bindError?: (name: string) => Error | undefined } = {}): SchedulerClient & { calls: FakeClientCalls } {
  const calls: FakeClientCalls = { binds: [], deletes: [], statusPatches: [] };
  return {
    calls,
    async bind(namespace, name, _uid, node) {
      const e = opts.bindError?.(name);
      if (e) throw e;
      calls.binds.push({ namespace, name, node });
    },
    async deletePod(namespace, name) {
      calls.deletes.push(`${namespace}/${name}`);
    },
    async patchPodStatus(pod, status) {
      calls.statusPatches.push({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, status });
    },
  };
}

/** Handle dependencies for plugin tests. */
export function testHandleDeps(cache: SchedulerCache, extra: { client?: SchedulerClient; selectorLister?: SelectorLister } = {}) {
  return {
    snapshot: () => cache,
    client: extra.client,
    clock: realClock,
    logger: silentLogger(),
    nominator: undefined,
    selectorLister: extra.selectorLister,
    namespaceLabels: undefined,
    event: () => undefined,
  } satisfies Omit<Handle, 'runFilterPlugins' | 'runPreFilterExtensionAddPod' | 'runPreFilterExtensionRemovePod'>;
}
