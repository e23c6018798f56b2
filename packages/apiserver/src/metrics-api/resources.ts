// metrics.k8s.io/v1beta1's two read-only resources, NodeMetrics and PodMetrics, as metrics-server registers
// them. They are served by the apiserver itself (API aggregation is not there yet), so they are not rows of
// the stored resource table: discovery adds them (discovery.ts) and metrics-api/serve.ts answers them.
import type { ResourceInfo } from '@kemu/api';

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';

function metricsResource(kind: string, plural: string, namespaced: boolean): ResourceInfo {
  return {
    group: METRICS_GROUP,
    version: METRICS_VERSION,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: '',
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ['get', 'list'],
    subresources: [],
  };
}

export const NODE_METRICS = metricsResource('NodeMetrics', 'nodes', false);
export const POD_METRICS = metricsResource('PodMetrics', 'pods', true);
export const METRICS_RESOURCES: readonly ResourceInfo[] = [NODE_METRICS, POD_METRICS];
