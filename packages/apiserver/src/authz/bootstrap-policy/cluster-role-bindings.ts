// The ClusterRoleBindings Kubernetes creates at start-up (bootstrappolicy clusterRoleBindings(), golden file
// testdata/cluster-role-bindings.yaml). The controllers' bindings are in controller-roles.ts.
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, SERVICE_ACCOUNTS_GROUP, SYSTEM_MASTERS } from '../../authn/user.ts';
import { clusterRoleBinding, group, serviceAccount, user } from './builder.ts';
import type { ClusterRoleBinding } from './types.ts';

export const KUBE_CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';
export const KUBE_SCHEDULER_USER = 'system:kube-scheduler';
export const KUBE_PROXY_USER = 'system:kube-proxy';
export const MONITORING_GROUP = 'system:monitoring';

export function clusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterRoleBinding('cluster-admin', [group(SYSTEM_MASTERS)]),
    clusterRoleBinding('system:monitoring', [group(MONITORING_GROUP)]),
    clusterRoleBinding('system:discovery', [group(ALL_AUTHENTICATED)]),
    clusterRoleBinding('system:basic-user', [group(ALL_AUTHENTICATED)]),
    clusterRoleBinding('system:public-info-viewer', [group(ALL_AUTHENTICATED), group(ALL_UNAUTHENTICATED)]),
    clusterRoleBinding('system:node-proxier', [user(KUBE_PROXY_USER)]),
    clusterRoleBinding('system:kube-controller-manager', [user(KUBE_CONTROLLER_MANAGER_USER)]),
    clusterRoleBinding('system:kube-dns', [serviceAccount('kube-system', 'kube-dns')]),
    clusterRoleBinding('system:kube-scheduler', [user(KUBE_SCHEDULER_USER)]),
    clusterRoleBinding('system:volume-scheduler', [user(KUBE_SCHEDULER_USER)]),
    // Kept without subjects since the Node authorizer (1.7): nodes get system:node through it, not RBAC.
    withoutSubjects(clusterRoleBinding('system:node', [])),
    clusterRoleBinding('system:service-account-issuer-discovery', [group(SERVICE_ACCOUNTS_GROUP)]),
  ];
}

function withoutSubjects(b: ClusterRoleBinding): ClusterRoleBinding {
  delete b.subjects;
  return b;
}
