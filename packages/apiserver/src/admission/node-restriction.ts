// NodeRestriction: a kubelet (user system:node:<name> in group system:nodes) may change only its own Node,
// not the labels reserved to administrators (node-restriction.kubernetes.io/ and the kubernetes.io / k8s.io
// labels outside kubelet's set), may create only mirror pods bound to itself, update the status of and
// delete only pods bound to itself, touch only its own Lease in kube-node-lease, and ask for ServiceAccount
// tokens only bound to a pod running on it. Other users pass.
import { errors, qualifiedResource, type KubeObject } from '@kemu/api';
import { nodeNameOf } from '../authn/node-identity.ts';
import type { AdmissionAttributes, AdmissionContext, AdmissionPlugin } from './types.ts';
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

/**
 * A node may ask for a ServiceAccount token only bound to a pod (by name and uid) that runs on it, so a
 * token it obtains dies with that pod (the Node authorizer already limits it to its pods' ServiceAccounts).
 * Without a pod getter wired in, every such request is refused as for a missing pod.
 */
async function admitServiceAccountToken(attrs: AdmissionAttributes, node: string, ctx: AdmissionContext): Promise<void> {
  if (attrs.operation !== 'CREATE' || attrs.subresource !== 'token') return;
  const spec = attrs.object?.spec;
  const ref = isObj(spec) && isObj(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || str(ref.name) === '') forbid(attrs, 'node requested token not bound to a pod');
  const uid = str(ref.uid);
  if (uid === '') forbid(attrs, 'node requested token with a pod binding without a uid');
  const podName = str(ref.name);
  const pod = await ctx.getPod?.(attrs.namespace ?? '', podName);
  if (!pod) throw errors.notFound('pods', podName);
  if (pod.metadata.uid !== uid) forbid(attrs, `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  if (nodeNameOfPod(pod) !== node) forbid(attrs, 'node requested token bound to a pod scheduled on a different node');
}

export const nodeRestrictionPlugin: AdmissionPlugin = {
  name: 'NodeRestriction',
  // A mutating plugin in Kubernetes (it changes nothing): it runs in the first phase, in its place.
  async admit(attrs, ctx) {
    const node = nodeNameOf(attrs.userInfo);
    if (node === undefined) return;
    const r = attrs.resource;
    if (r.group === '' && r.kind === 'Pod') admitPod(attrs, node);
    else if (r.group === '' && r.kind === 'Node') admitNode(attrs, node);
    else if (r.group === '' && r.kind === 'ServiceAccount') await admitServiceAccountToken(attrs, node, ctx);
    else if (r.group === 'coordination.k8s.io' && r.kind === 'Lease' && attrs.namespace === NODE_LEASE_NAMESPACE && attrs.name !== node) {
      forbid(attrs, 'can only access node lease with the same name as the requesting node');
    }
  },
};
