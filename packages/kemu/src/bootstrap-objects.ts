// The API objects TLS bootstrapping needs besides the token: seed 003's three ClusterRoleBindings (bootstrap.secret.yaml)
// and kubeadm's kube-public/cluster-info ConfigMap (the CA and server, which bootstrapsigner signs per token) with the
// Role and RoleBinding that let anyone read it.
import { stringify } from 'yaml';
import type { KubeObject } from '@kemu/api';
import { LAB_BOOTSTRAP_GROUP } from './bootstrap-token.ts';

const RBAC = 'rbac.authorization.k8s.io';

function clusterRoleBinding(name: string, role: string, group: string): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: RBAC, kind: 'Group', name: group }],
  };
}

/** Seed 003's bindings: bootstrappers may create CSRs, their node-client CSRs and nodes' renewals are auto-approved. */
export function bootstrapBindings(): KubeObject[] {
  return [
    clusterRoleBinding('kubelet-bootstrap', 'system:node-bootstrapper', LAB_BOOTSTRAP_GROUP),
    clusterRoleBinding('node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', LAB_BOOTSTRAP_GROUP),
    clusterRoleBinding('node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', 'system:nodes'),
  ];
}

/** The user the apiservers are to kubelets: apiserver.pem's CN, which seed 003 passes as --kubelet-client-certificate. */
export const KUBELET_API_USER = 'kube-apiserver';

/**
 * Lets the apiservers use the kubelets' API (pods/log, exec, …): kubelets authorize their client certificate with a
 * SubjectAccessReview (nodes/proxy, …), so it is bound to the bootstrap policy's system:kubelet-api-admin, as binary
 * installs like seed 003's bind it (kubeadm's kube-apiserver-kubelet-client gets the same rights).
 */
export function kubeletApiBinding(): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'kube-apiserver:kubelet-apis' },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'system:kubelet-api-admin' },
    subjects: [{ apiGroup: RBAC, kind: 'User', name: KUBELET_API_USER }],
  };
}

/** clientcmd.Write of kubeadm's cluster-info kubeconfig: one cluster named "" with the server and the CA, nothing else (Go's YAML: sequences not indented). */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return stringify({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': Buffer.from(caPem).toString('base64'), server }, name: '' }],
    contexts: null,
    'current-context': '',
    kind: 'Config',
    preferences: {},
    users: null,
  }, { lineWidth: 0, indentSeq: false });
}

export const CLUSTER_INFO_RBAC_NAME = 'kubeadm:bootstrap-signer-clusterinfo';

/** kubeadm's clusterinfo phase: the ConfigMap, and get on it for system:anonymous (joining nodes read it unauthenticated). */
export function clusterInfoObjects(server: string, caPem: string): { configMap: KubeObject; role: KubeObject; roleBinding: KubeObject } {
  return {
    configMap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' }, data: { kubeconfig: clusterInfoKubeconfig(server, caPem) } },
    role: {
      apiVersion: `${RBAC}/v1`,
      kind: 'Role',
      metadata: { name: CLUSTER_INFO_RBAC_NAME, namespace: 'kube-public' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] }],
    },
    roleBinding: {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: CLUSTER_INFO_RBAC_NAME, namespace: 'kube-public' },
      roleRef: { apiGroup: RBAC, kind: 'Role', name: CLUSTER_INFO_RBAC_NAME },
      subjects: [{ kind: 'User', name: 'system:anonymous' }],
    },
  };
}
