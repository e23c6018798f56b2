// The cluster-autoscaler's identity, as the autoscaler's Helm chart (charts/cluster-autoscaler) gives it: the
// ServiceAccount kube-system/cluster-autoscaler, the ClusterRole `cluster-autoscaler` (read the workloads, update
// Nodes, evict pods, events, its Lease) and the kube-system Role `cluster-autoscaler` (its status ConfigMap), each
// bound to the ServiceAccount. kemu runs the autoscaler as a process rather than a pod, so it gets the token a pod
// would have through a TokenRequest (`kubectl create token`) written into DIR/cluster-autoscaler.kubeconfig.
// The chart's ClusterRole has no `delete` on nodes: the cloud removes the Node of a deleted machine (node-groups.ts).
import fs from 'node:fs';
import path from 'node:path';
import { R, StatusError, type KubeObject, type ResourceInfo } from '@kemu/api';
import type { RestClient } from '@kemu/client';
import { tokenKubeconfigYaml } from '@kemu/pki';
import { labPkiFiles, writeIfChanged } from './lab-pki.ts';

export const CLUSTER_AUTOSCALER_NAMESPACE = 'kube-system';
export const CLUSTER_AUTOSCALER_NAME = 'cluster-autoscaler';
/** The user a ServiceAccount token authenticates as. */
export const CLUSTER_AUTOSCALER_USER = `system:serviceaccount:${CLUSTER_AUTOSCALER_NAMESPACE}:${CLUSTER_AUTOSCALER_NAME}`;
/** A year: the token outlives any lab run, and each `kemu up` asks for a new one. */
const TOKEN_SECONDS = 365 * 24 * 3600;

const RBAC = 'rbac.authorization.k8s.io';
const labels = { 'app.kubernetes.io/name': CLUSTER_AUTOSCALER_NAME, 'app.kubernetes.io/managed-by': 'kemu' };
const rule = (apiGroups: string[], resources: string[], verbs: string[], resourceNames?: string[]) => ({
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
  verbs,
});

/** The chart's ClusterRole (rbac.clusterScoped, no PodSecurityPolicy, no cluster-api rules). */
export function clusterAutoscalerClusterRole(): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRole',
    metadata: { name: CLUSTER_AUTOSCALER_NAME, labels },
    rules: [
      rule([''], ['events', 'endpoints'], ['create', 'patch']),
      rule([''], ['pods/eviction'], ['create']),
      rule([''], ['pods/status'], ['update']),
      rule([''], ['endpoints'], ['get', 'update'], [CLUSTER_AUTOSCALER_NAME]),
      rule([''], ['nodes'], ['watch', 'list', 'get', 'update']),
      rule([''], ['namespaces', 'pods', 'services', 'replicationcontrollers', 'persistentvolumeclaims', 'persistentvolumes'], ['watch', 'list', 'get']),
      rule(['batch'], ['jobs', 'cronjobs'], ['watch', 'list', 'get']),
      rule(['batch', 'extensions'], ['jobs'], ['get', 'list', 'patch', 'watch']),
      rule(['extensions'], ['replicasets', 'daemonsets'], ['watch', 'list', 'get']),
      rule(['policy'], ['poddisruptionbudgets'], ['watch', 'list']),
      rule(['apps'], ['daemonsets', 'replicasets', 'statefulsets'], ['watch', 'list', 'get']),
      rule(['storage.k8s.io'], ['storageclasses', 'csinodes', 'csidrivers', 'csistoragecapacities'], ['watch', 'list', 'get']),
      rule([''], ['configmaps'], ['list', 'watch']),
      rule(['coordination.k8s.io'], ['leases'], ['create']),
      rule(['coordination.k8s.io'], ['leases'], ['get', 'update'], [CLUSTER_AUTOSCALER_NAME]),
    ],
  };
}

/** The chart's Role in the release namespace: the status ConfigMap (without the priority expander's). */
export function clusterAutoscalerRole(): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'Role',
    metadata: { name: CLUSTER_AUTOSCALER_NAME, namespace: CLUSTER_AUTOSCALER_NAMESPACE, labels },
    rules: [rule([''], ['configmaps'], ['create']), rule([''], ['configmaps'], ['delete', 'get', 'update'], ['cluster-autoscaler-status'])],
  };
}

/** Every object of the identity, in creation order. */
export function clusterAutoscalerObjects(): { resource: ResourceInfo; object: KubeObject }[] {
  const subjects = [{ kind: 'ServiceAccount', name: CLUSTER_AUTOSCALER_NAME, namespace: CLUSTER_AUTOSCALER_NAMESPACE }];
  const ns = CLUSTER_AUTOSCALER_NAMESPACE;
  return [
    { resource: R.serviceaccounts, object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: CLUSTER_AUTOSCALER_NAME, namespace: ns, labels } } },
    { resource: R.clusterroles, object: clusterAutoscalerClusterRole() },
    {
      resource: R.clusterrolebindings,
      object: { apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name: CLUSTER_AUTOSCALER_NAME, labels }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: CLUSTER_AUTOSCALER_NAME }, subjects },
    },
    { resource: R.roles, object: clusterAutoscalerRole() },
    {
      resource: R.rolebindings,
      object: { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: CLUSTER_AUTOSCALER_NAME, namespace: ns, labels }, roleRef: { apiGroup: RBAC, kind: 'Role', name: CLUSTER_AUTOSCALER_NAME }, subjects },
    },
  ];
}

/** DIR/cluster-autoscaler.kubeconfig. */
export function clusterAutoscalerKubeconfig(dataDir: string): string {
  return path.join(dataDir, 'cluster-autoscaler.kubeconfig');
}

/**
 * Creates what is missing (an existing object is the user's: kept as it is), asks for a token of the
 * ServiceAccount and writes the kubeconfig with it, pointed at `server`. Returns what it created.
 */
export async function ensureClusterAutoscalerIdentity(client: RestClient, o: { dataDir: string; server: string }): Promise<string[]> {
  const made: string[] = [];
  for (const { resource, object } of clusterAutoscalerObjects()) {
    try {
      await client.create(resource, object.metadata.namespace, object);
      made.push(`${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`);
    } catch (e) {
      if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
    }
  }
  const tr = await client.createSubresource<{ status?: { token?: unknown } }>(R.serviceaccounts, CLUSTER_AUTOSCALER_NAMESPACE, CLUSTER_AUTOSCALER_NAME, 'token', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: TOKEN_SECONDS },
  });
  const token = tr.status?.token;
  if (typeof token !== 'string' || !token) throw new Error('the TokenRequest for kube-system/cluster-autoscaler returned no token');
  const caPem = fs.readFileSync(labPkiFiles(o.dataDir).ca, 'utf8');
  writeIfChanged(clusterAutoscalerKubeconfig(o.dataDir), tokenKubeconfigYaml({ server: o.server, caPem, user: CLUSTER_AUTOSCALER_NAME, token }));
  return made;
}
