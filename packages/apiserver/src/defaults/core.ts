// core/v1 defaulting beyond pods (pkg/apis/core/v1/defaults.go): Service, Namespace, Node, Secret,
// Endpoints; plus EndpointSlice and PriorityClass from their groups.
import { ensureObj, isObj, objects, setDefault } from './util.ts';
import type { Obj } from './util.ts';

export function defaultService(svc: Obj): void {
  const spec = ensureObj(svc, 'spec');
  setDefault(spec, 'type', 'ClusterIP');
  setDefault(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'ClientIP') {
    const cfg = ensureObj(ensureObj(spec, 'sessionAffinityConfig'), 'clientIP');
    setDefault(cfg, 'timeoutSeconds', 10800);
  }
  for (const p of objects(spec.ports)) {
    setDefault(p, 'protocol', 'TCP');
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.type !== 'ExternalName') setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') setDefault(spec, 'allocateLoadBalancerNodePorts', true);
}

export function defaultNamespace(ns: Obj): void {
  // SetDefaults_Namespace: the immutable name label every namespace carries since 1.21.
  const meta = ensureObj(ns, 'metadata');
  if (typeof meta.name === 'string' && meta.name !== '') ensureObj(meta, 'labels')['kubernetes.io/metadata.name'] = meta.name;
}

export function defaultNode(node: Obj): void {
  const status = node.status;
  if (isObj(status) && isObj(status.capacity) && (status.allocatable === undefined || status.allocatable === null))
    status.allocatable = { ...status.capacity };
}

export function defaultSecret(s: Obj): void {
  setDefault(s, 'type', 'Opaque');
}

export function defaultEndpoints(ep: Obj): void {
  for (const subset of objects(ep.subsets)) for (const p of objects(subset.ports)) setDefault(p, 'protocol', 'TCP');
}

export function defaultEndpointSlice(es: Obj): void {
  for (const p of objects(es.ports)) {
    setDefault(p, 'protocol', 'TCP');
    if (p.name === undefined || p.name === null) p.name = '';
  }
}

export function defaultPriorityClass(pc: Obj): void {
  setDefault(pc, 'preemptionPolicy', 'PreemptLowerPriority');
}
