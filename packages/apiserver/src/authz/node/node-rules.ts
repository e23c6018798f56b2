// The static rules the Node authorizer grants every node for the resources it does not decide from the
// graph: Kubernetes 1.32's bootstrappolicy.NodeRules() at default feature gates (the rules of the
// `system:node` ClusterRole, which Kubernetes no longer binds to anyone: the Node authorizer applies them
// itself). Plain data; plurals are Kubernetes' (some name kinds kemu does not serve yet, which then 404).
// Requests for secrets, configmaps, PVCs, PVs, serviceaccounts, leases, nodes, pods, csinodes,
// volumeattachments, resourceclaims and resourceslices never reach these rules (node-authorizer.ts decides
// them first, more narrowly); the list is kept whole so that it reads as Kubernetes' NodeRules.
import type { ResourceRule } from '../types.ts';

const rule = (verbs: string[], apiGroups: string[], resources: string[]): ResourceRule => ({ verbs, apiGroups, resources, resourceNames: [] });

const READ = ['get', 'list', 'watch'];
const CORE = '';

export const NODE_RULES: readonly ResourceRule[] = [
  // Needed to check API access (these creates do not mutate).
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
  // The kubelet's service lister (service environment variables).
  rule(READ, [CORE], ['services']),
  // A node registers and reports on its Node (NodeRestriction limits it to its own).
  rule(['create', 'get', 'list', 'watch'], [CORE], ['nodes']),
  rule(['update', 'patch'], [CORE], ['nodes/status']),
  rule(['update', 'patch'], [CORE], ['nodes']),
  rule(['create', 'update', 'patch'], [CORE], ['events']),
  rule(READ, [CORE], ['pods']),
  // Mirror pods, pod status and evictions (NodeRestriction limits them to pods bound to the node).
  rule(['create', 'delete'], [CORE], ['pods']),
  rule(['update', 'patch'], [CORE], ['pods/status']),
  rule(['create'], [CORE], ['pods/eviction']),
  // Narrowed by the graph to what the node's pods reference.
  rule(READ, [CORE], ['secrets', 'configmaps']),
  rule(['get'], [CORE], ['persistentvolumeclaims', 'persistentvolumes']),
  // glusterfs volumes.
  rule(['get'], [CORE], ['endpoints']),
  // Client certificate rotation.
  rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  rule(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
  rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
  rule(['create'], [CORE], ['serviceaccounts/token']),
  rule(['get', 'update', 'patch'], [CORE], ['persistentvolumeclaims/status']),
  rule(READ, ['storage.k8s.io'], ['csidrivers']),
  rule(['get', 'create', 'update', 'patch', 'delete'], ['storage.k8s.io'], ['csinodes']),
  rule(READ, ['node.k8s.io'], ['runtimeclasses']),
];
