// NodeRestriction: a kubelet (user system:node:<name> in group system:nodes) may change only its own Node,
// not the labels reserved to administrators (node-restriction.kubernetes.io/ and the kubernetes.io / k8s.io
// labels outside kubelet's set), may create only mirror pods bound to itself, update the status of and
// delete only pods bound to itself, and touch only its own Lease in kube-node-lease. Other users pass.
import { errors, qualifiedResource, type KubeObject } from '@kemu/api';
import { nodeNameOf } from '../authn/node-identity.ts';
import type { AdmissionAttributes, AdmissionPlugin } from './types.ts';
import { isObj } from './types.ts';

export { NODE_USER_PREFIX, NODES_GROUP } from '../authn/user.ts';
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const RESTRICTION_PREFIX = 'node-restriction.kubernetes.io/';

export { nodeNameOf };

// Kubelet's own labels (kubelet --node-labels may set these in the kubernetes.io / k8s.io namespaces).
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'topology.kubernetes.io/zone',
]);
const KUBELET_LABEL_DOMAINS = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

/** A label a node may not set on itself. */
export function isForbiddenNodeLabel(key: string): boolean {
  if (key.startsWith(RESTRICTION_PREFIX)) return true;
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const domain = key.slice(0, slash);
  const reserved = (d: string): boolean => d === 'kubernetes.io' || d.endsWith('.kubernetes.io') || d === 'k8s.io' || d.endsWith('.k8s.io');
  if (!reserved(domain)) return false;
  if (KUBELET_LABELS.has(key)) return false;
  return !KUBELET_LABEL_DOMAINS.some((d) => domain === d || domain.endsWith(`.${d}`));
}

function forbid(attrs: AdmissionAttributes, detail: string): never {
  throw errors.forbidden(`${qualifiedResource(attrs.resource)} "${attrs.name}" is forbidden: ${detail}`);
}

const labelsOf = (o: KubeObject | undefined): Record<string, string> => o?.metadata.labels ?? {};
const nodeNameOfPod = (o: KubeObject | undefined): unknown => (isObj(o?.spec) ? o.spec.nodeName : undefined);

function admitPod(attrs: AdmissionAttributes, node: string): void {
  if (attrs.subresource === 'status') {
    if (nodeNameOfPod(attrs.oldObject) !== node) forbid(attrs, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
    return;
  }
  if (attrs.subresource) return;
  switch (attrs.operation) {
    case 'CREATE': {
      const pod = attrs.object;
      if (pod?.metadata.annotations?.[MIRROR_POD_ANNOTATION] === undefined) forbid(attrs, `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
      if (nodeNameOfPod(pod) !== node) forbid(attrs, `node "${node}" can only create pods with spec.nodeName set to itself`);
      return;
    }
    case 'DELETE':
      if (nodeNameOfPod(attrs.oldObject) !== node) forbid(attrs, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    default:
      forbid(attrs, `unexpected operation "${attrs.operation}", node "${node}" can only create and delete mirror pods`);
  }
}

function admitNode(attrs: AdmissionAttributes, node: string): void {
  if (attrs.name !== node) forbid(attrs, `node "${node}" is not allowed to modify node "${attrs.name}"`);
  if (attrs.operation === 'CREATE') {
    const bad = Object.keys(labelsOf(attrs.object)).filter(isForbiddenNodeLabel).sort();
    if (bad.length > 0) forbid(attrs, `node "${node}" is not allowed to set the following labels: ${bad.join(', ')}`);
  }
  if (attrs.operation === 'UPDATE') {
    const next = labelsOf(attrs.object);
    const prev = labelsOf(attrs.oldObject);
    const changed = [...new Set([...Object.keys(next), ...Object.keys(prev)])].filter((k) => next[k] !== prev[k]);
    const bad = changed.filter(isForbiddenNodeLabel).sort();
    if (bad.length > 0) forbid(attrs, `node "${node}" is not allowed to modify labels: ${bad.join(', ')}`);
    const taints = (o: KubeObject | undefined): string => JSON.stringify((isObj(o?.spec) ? o.spec.taints : undefined) ?? []);
    if (taints(attrs.object) !== taints(attrs.oldObject)) forbid(attrs, `node "${node}" is not allowed to modify taints`);
  }
}

export const nodeRestrictionPlugin: AdmissionPlugin = {
  name: 'NodeRestriction',
  // A mutating plugin in Kubernetes (it changes nothing): it runs in the first phase, in its place.
  admit(attrs) {
    const node = nodeNameOf(attrs.userInfo);
    if (node === undefined) return;
    const r = attrs.resource;
    if (r.group === '' && r.kind === 'Pod') admitPod(attrs, node);
    else if (r.group === '' && r.kind === 'Node') admitNode(attrs, node);
    else if (r.group === 'coordination.k8s.io' && r.kind === 'Lease' && attrs.namespace === NODE_LEASE_NAMESPACE && attrs.name !== node) {
      forbid(attrs, 'can only access node lease with the same name as the requesting node');
    }
  },
};
