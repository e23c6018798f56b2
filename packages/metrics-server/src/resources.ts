// metrics.k8s.io/v1beta1's two read-only resources as metrics-server registers them: NodeMetrics (nodes, cluster
// scope) and PodMetrics (pods, namespaced), get and list. They are no rows of kemu's stored resource table: the
// apiserver only proxies to this server (an aggregated APIService), which answers them from its scrapes.
export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';
export const API_VERSION = `${METRICS_GROUP}/${METRICS_VERSION}`;

export interface MetricsResource {
  name: 'nodes' | 'pods';
  kind: 'NodeMetrics' | 'PodMetrics';
  /** The group resource of its NotFound (metrics.Resource("nodemetrics") in metrics-server). */
  notFoundResource: string;
  namespaced: boolean;
}

export const NODE_METRICS: MetricsResource = { name: 'nodes', kind: 'NodeMetrics', notFoundResource: 'nodemetrics', namespaced: false };
export const POD_METRICS: MetricsResource = { name: 'pods', kind: 'PodMetrics', notFoundResource: 'podmetrics', namespaced: true };

/** The APIResourceList metrics-server serves at /apis/metrics.k8s.io/v1beta1. */
export function apiResourceList(): Record<string, unknown> {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: API_VERSION,
    resources: [NODE_METRICS, POD_METRICS].map((r) => ({ name: r.name, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'list'] })),
  };
}

export function apiGroup(): Record<string, unknown> {
  const v = { groupVersion: API_VERSION, version: METRICS_VERSION };
  return { kind: 'APIGroup', apiVersion: 'v1', name: METRICS_GROUP, versions: [v], preferredVersion: v };
}
