// The ClusterRoles Kubernetes creates at start-up (plugin/pkg/auth/authorizer/rbac/bootstrappolicy, golden
// file testdata/cluster-roles.yaml). The system:controller:* roles are in controller-roles.ts.
import { READ, READ_WRITE, WRITE, aggregatedClusterRole, clusterRole, eventsRule, rule, urls } from './builder.ts';
import type { ClusterRole } from './types.ts';

export const AGGREGATE_TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
export const AGGREGATE_TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
export const AGGREGATE_TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

const toAdmin = { [AGGREGATE_TO_ADMIN]: 'true' };
const toEdit = { [AGGREGATE_TO_EDIT]: 'true' };
const toView = { [AGGREGATE_TO_VIEW]: 'true' };

/** The workload roles: view ⊂ edit ⊂ admin by aggregation, their rules in the system:aggregate-to-* roles. */
function workloadRoles(): ClusterRole[] {
  return [
    aggregatedClusterRole('admin', AGGREGATE_TO_ADMIN),
    aggregatedClusterRole('edit', AGGREGATE_TO_EDIT, toAdmin),
    aggregatedClusterRole('view', AGGREGATE_TO_VIEW, toEdit),
    clusterRole(
      'system:aggregate-to-admin',
      [rule('create', 'authorization.k8s.io', 'localsubjectaccessreviews'), rule(READ_WRITE, 'rbac.authorization.k8s.io', 'roles rolebindings')],
      toAdmin,
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        // Reading secrets and the proxy/exec subresources lives here, not in view: they let one act as others.
        rule(READ, '', 'pods/attach pods/proxy pods/exec pods/portforward secrets services/proxy'),
        rule('impersonate', '', 'serviceaccounts'),
        rule(WRITE, '', 'pods pods/attach pods/proxy pods/exec pods/portforward'),
        rule('create', '', 'pods/eviction'),
        rule(WRITE, '', 'replicationcontrollers replicationcontrollers/scale serviceaccounts services services/proxy persistentvolumeclaims configmaps secrets events'),
        rule('create', '', 'serviceaccounts/token'),
        rule(WRITE, 'apps', 'statefulsets statefulsets/scale daemonsets deployments deployments/scale deployments/rollback replicasets replicasets/scale'),
        rule(WRITE, 'autoscaling', 'horizontalpodautoscalers'),
        rule(WRITE, 'batch', 'jobs cronjobs'),
        rule(
          WRITE,
          'extensions',
          'daemonsets deployments deployments/scale deployments/rollback ingresses replicasets replicasets/scale replicationcontrollers/scale networkpolicies',
        ),
        rule(WRITE, 'policy', 'poddisruptionbudgets'),
        rule(WRITE, 'networking.k8s.io', 'ingresses networkpolicies'),
        rule(READ_WRITE, 'coordination.k8s.io', 'leases'),
      ],
      toEdit,
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        // No secrets: view must not let one read credentials.
        rule(
          READ,
          '',
          'pods replicationcontrollers replicationcontrollers/scale serviceaccounts services services/status endpoints persistentvolumeclaims persistentvolumeclaims/status configmaps',
        ),
        rule(READ, '', 'limitranges resourcequotas bindings events pods/status resourcequotas/status namespaces/status replicationcontrollers/status pods/log'),
        // A namespace's own object: a user bound to view in a namespace can read it.
        rule(READ, '', 'namespaces'),
        rule(READ, 'discovery.k8s.io', 'endpointslices'),
        rule(
          READ,
          'apps',
          'controllerrevisions statefulsets statefulsets/status statefulsets/scale daemonsets daemonsets/status deployments deployments/status deployments/scale replicasets replicasets/status replicasets/scale',
        ),
        rule(READ, 'autoscaling', 'horizontalpodautoscalers horizontalpodautoscalers/status'),
        rule(READ, 'batch', 'jobs jobs/status cronjobs cronjobs/status'),
        rule(
          READ,
          'extensions',
          'daemonsets daemonsets/status deployments deployments/scale deployments/status ingresses ingresses/status replicasets replicasets/scale replicasets/status replicationcontrollers/scale networkpolicies',
        ),
        rule(READ, 'policy', 'poddisruptionbudgets poddisruptionbudgets/status'),
        rule(READ, 'networking.k8s.io', 'ingresses ingresses/status networkpolicies'),
      ],
      toView,
    ),
  ];
}

function signerApprover(name: string, signer: string): ClusterRole {
  return clusterRole(`system:certificates.k8s.io:${name}`, [rule('approve', 'certificates.k8s.io', 'signers', signer)]);
}

/** Every bootstrap ClusterRole except the controllers' own. */
export function clusterRoles(): ClusterRole[] {
  return [
    clusterRole('cluster-admin', [rule('*', '*', '*'), urls('*', '*')]),
    clusterRole('system:discovery', [urls('get', '/livez /readyz /healthz /version /version/ /openapi /openapi/* /api /api/* /apis /apis/*')]),
    clusterRole('system:monitoring', [urls('get', '/metrics /metrics/slis /livez /readyz /healthz /livez/* /readyz/* /healthz/*')]),
    clusterRole('system:basic-user', [
      rule('create', 'authorization.k8s.io', 'selfsubjectaccessreviews selfsubjectrulesreviews'),
      rule('create', 'authentication.k8s.io', 'selfsubjectreviews'),
    ]),
    clusterRole('system:public-info-viewer', [urls('get', '/livez /readyz /healthz /version /version/')]),
    ...workloadRoles(),
    clusterRole('system:heapster', [rule(READ, '', 'events pods nodes namespaces'), rule(READ, 'extensions', 'deployments')]),
    clusterRole('system:node', [
      rule('create', 'authentication.k8s.io', 'tokenreviews'),
      rule('create', 'authorization.k8s.io', 'subjectaccessreviews localsubjectaccessreviews'),
      rule(READ, '', 'services'),
      rule('create get list watch', '', 'nodes'),
      rule('update patch', '', 'nodes/status'),
      rule('update patch', '', 'nodes'),
      rule('create update patch', '', 'events'),
      rule(READ, '', 'pods'),
      rule('create delete', '', 'pods'),
      rule('update patch', '', 'pods/status'),
      rule('create', '', 'pods/eviction'),
      rule(READ, '', 'secrets configmaps'),
      rule('get', '', 'persistentvolumeclaims persistentvolumes'),
      rule('get', '', 'endpoints'),
      rule('create get list watch', 'certificates.k8s.io', 'certificatesigningrequests'),
      rule('get create update patch delete', 'coordination.k8s.io', 'leases'),
      rule('get', 'storage.k8s.io', 'volumeattachments'),
      rule('create', '', 'serviceaccounts/token'),
      rule('get update patch', '', 'persistentvolumeclaims/status'),
      rule(READ, 'storage.k8s.io', 'csidrivers'),
      rule('get create update patch delete', 'storage.k8s.io', 'csinodes'),
      rule(READ, 'node.k8s.io', 'runtimeclasses'),
    ]),
    clusterRole('system:node-problem-detector', [rule('get', '', 'nodes'), rule('patch', '', 'nodes/status'), eventsRule()]),
    clusterRole('system:kubelet-api-admin', [
      rule(READ, '', 'nodes'),
      rule('proxy', '', 'nodes'),
      rule('*', '', 'nodes/proxy nodes/metrics nodes/stats nodes/log'),
    ]),
    clusterRole('system:node-bootstrapper', [rule('create get list watch', 'certificates.k8s.io', 'certificatesigningrequests')]),
    clusterRole('system:auth-delegator', [rule('create', 'authentication.k8s.io', 'tokenreviews'), rule('create', 'authorization.k8s.io', 'subjectaccessreviews')]),
    clusterRole('system:kube-aggregator', [rule(READ, '', 'services endpoints')]),
    clusterRole('system:kube-controller-manager', [
      eventsRule(),
      // Creating any lease, but only its own (kube-controller-manager) may be read and renewed.
      rule('create', 'coordination.k8s.io', 'leases'),
      rule('get update', 'coordination.k8s.io', 'leases', 'kube-controller-manager'),
      rule('create', '', 'secrets serviceaccounts'),
      rule('delete', '', 'secrets'),
      rule('get', '', 'namespaces secrets serviceaccounts configmaps'),
      rule('update', '', 'secrets serviceaccounts'),
      rule('create', 'authentication.k8s.io', 'tokenreviews'),
      rule('create', 'authorization.k8s.io', 'subjectaccessreviews'),
      // Its informers list and watch everything.
      rule('list watch', '*', '*'),
      rule('create', '', 'serviceaccounts/token'),
    ]),
    clusterRole('system:kube-dns', [rule('list watch', '', 'endpoints services')]),
    clusterRole('system:persistent-volume-provisioner', [
      rule('get list watch create delete', '', 'persistentvolumes'),
      rule('get list watch update', '', 'persistentvolumeclaims'),
      rule(READ, 'storage.k8s.io', 'storageclasses'),
      rule('watch', '', 'events'),
      eventsRule(),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [
      rule('create', 'certificates.k8s.io', 'certificatesigningrequests/nodeclient'),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [
      rule('create', 'certificates.k8s.io', 'certificatesigningrequests/selfnodeclient'),
    ]),
    signerApprover('kube-apiserver-client-approver', 'kubernetes.io/kube-apiserver-client'),
    signerApprover('kube-apiserver-client-kubelet-approver', 'kubernetes.io/kube-apiserver-client-kubelet'),
    signerApprover('kubelet-serving-approver', 'kubernetes.io/kubelet-serving'),
    signerApprover('legacy-unknown-approver', 'kubernetes.io/legacy-unknown'),
    clusterRole('system:volume-scheduler', [
      rule('get list watch update patch', '', 'persistentvolumes'),
      rule(READ, 'storage.k8s.io', 'storageclasses'),
      rule('get list watch update patch', '', 'persistentvolumeclaims'),
    ]),
    clusterRole('system:kube-scheduler', [
      eventsRule(),
      rule('create', 'coordination.k8s.io', 'leases'),
      rule('get update', 'coordination.k8s.io', 'leases', 'kube-scheduler'),
      rule(READ, '', 'nodes'),
      rule('get list watch delete', '', 'pods'),
      rule('create', '', 'pods/binding bindings'),
      rule('patch update', '', 'pods/status'),
      rule(READ, '', 'replicationcontrollers services'),
      rule(READ, ['apps', 'extensions'], 'replicasets'),
      rule(READ, 'apps', 'statefulsets'),
      rule(READ, 'policy', 'poddisruptionbudgets'),
      rule(READ, '', 'persistentvolumeclaims persistentvolumes'),
      rule('create', 'authentication.k8s.io', 'tokenreviews'),
      rule('create', 'authorization.k8s.io', 'subjectaccessreviews'),
      rule(READ, 'storage.k8s.io', 'csinodes'),
      rule(READ, '', 'namespaces'),
      rule(READ, 'storage.k8s.io', 'csidrivers'),
      rule(READ, 'storage.k8s.io', 'csistoragecapacities'),
    ]),
    clusterRole('system:node-proxier', [
      rule('list watch', '', 'services endpoints'),
      rule(READ, '', 'nodes'),
      eventsRule(),
      rule('list watch', 'discovery.k8s.io', 'endpointslices'),
    ]),
    clusterRole('system:service-account-issuer-discovery', [urls('get', '/.well-known/openid-configuration /openid/v1/jwks')]),
  ];
}
