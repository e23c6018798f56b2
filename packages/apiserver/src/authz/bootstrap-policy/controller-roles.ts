// One system:controller:<name> ClusterRole per kube-controller-manager controller, each bound to the
// kube-system ServiceAccount <name> (what --use-service-account-credentials runs them as). Kubernetes'
// bootstrappolicy controller_policy.go with its default feature gates (golden file testdata/controller-roles.yaml).
import { READ, clusterRole, clusterRoleBinding, eventsRule, rule, serviceAccount } from './builder.ts';
import type { ClusterRole, ClusterRoleBinding, PolicyRule } from './types.ts';

export const CONTROLLER_ROLE_PREFIX = 'system:controller:';

const ALL_SIGNERS = 'kubernetes.io/legacy-unknown kubernetes.io/kube-apiserver-client kubernetes.io/kube-apiserver-client-kubelet kubernetes.io/kubelet-serving';
const appsExt = ['apps', 'extensions'];

/** Controller name (without the prefix) → its rules. */
const CONTROLLERS: Record<string, PolicyRule[]> = {
  'attachdetach-controller': [
    rule('list watch', '', 'persistentvolumes persistentvolumeclaims'),
    rule(READ, '', 'nodes'),
    rule('patch update', '', 'nodes/status'),
    rule('list watch', '', 'pods'),
    eventsRule(),
    rule('get create delete list watch', 'storage.k8s.io', 'volumeattachments'),
    rule(READ, 'storage.k8s.io', 'csidrivers'),
    rule(READ, 'storage.k8s.io', 'csinodes'),
  ],
  // Full power over clusterroles (escalate included): it writes rules it does not itself hold.
  'clusterrole-aggregation-controller': [rule('escalate get list watch update patch', 'rbac.authorization.k8s.io', 'clusterroles')],
  'cronjob-controller': [
    rule('get list watch update', 'batch', 'cronjobs'),
    rule('get list watch create update delete patch', 'batch', 'jobs'),
    rule('update', 'batch', 'cronjobs/status'),
    rule('update', 'batch', 'cronjobs/finalizers'),
    rule('list delete', '', 'pods'),
    eventsRule(),
  ],
  'daemon-set-controller': [
    rule(READ, appsExt, 'daemonsets'),
    rule('update', appsExt, 'daemonsets/status'),
    rule('update', appsExt, 'daemonsets/finalizers'),
    rule('list watch', '', 'nodes'),
    rule('list watch create delete patch', '', 'pods'),
    rule('create', '', 'pods/binding'),
    rule('get list watch create delete update patch', 'apps', 'controllerrevisions'),
    eventsRule(),
  ],
  'deployment-controller': [
    rule('get list watch update', appsExt, 'deployments'),
    rule('update', appsExt, 'deployments/status'),
    rule('update', appsExt, 'deployments/finalizers'),
    rule('get list watch create update patch delete', appsExt, 'replicasets'),
    rule('get list watch update', '', 'pods'),
    eventsRule(),
  ],
  'disruption-controller': [
    rule(READ, appsExt, 'deployments'),
    rule(READ, appsExt, 'replicasets'),
    rule(READ, '', 'replicationcontrollers'),
    rule(READ, 'policy', 'poddisruptionbudgets'),
    rule(READ, 'apps', 'statefulsets'),
    rule('update', 'policy', 'poddisruptionbudgets/status'),
    rule('patch update', '', 'pods/status'),
    rule('get', '*', '*/scale'),
    eventsRule(),
  ],
  'endpoint-controller': [
    rule(READ, '', 'services pods'),
    rule('get list create update delete', '', 'endpoints'),
    rule('create', '', 'endpoints/restricted'),
    eventsRule(),
  ],
  'endpointslice-controller': [
    rule(READ, '', 'services pods nodes'),
    // Owner references with blockOwnerDeletion need update on the owner's finalizers.
    rule('update', '', 'services/finalizers'),
    rule('get list create update delete', 'discovery.k8s.io', 'endpointslices'),
    eventsRule(),
  ],
  'endpointslicemirroring-controller': [
    rule(READ, '', 'services endpoints'),
    rule('update', '', 'services/finalizers'),
    rule('update', '', 'endpoints/finalizers'),
    rule('get list create update delete', 'discovery.k8s.io', 'endpointslices'),
    eventsRule(),
  ],
  'expand-controller': [
    rule('get list watch update patch', '', 'persistentvolumes'),
    rule('update patch', '', 'persistentvolumeclaims/status'),
    rule(READ, '', 'persistentvolumeclaims'),
    rule(READ, 'storage.k8s.io', 'storageclasses'),
    rule('get', '', 'services endpoints'),
    rule('get', '', 'secrets'),
    eventsRule(),
  ],
  'ephemeral-volume-controller': [
    rule(READ, '', 'pods'),
    rule('update', '', 'pods/finalizers'),
    rule('get list watch create', '', 'persistentvolumeclaims'),
    eventsRule(),
  ],
  'generic-garbage-collector': [rule('get list watch patch update delete', '*', '*'), eventsRule()],
  'horizontal-pod-autoscaler': [
    rule(READ, 'autoscaling', 'horizontalpodautoscalers'),
    rule('update', 'autoscaling', 'horizontalpodautoscalers/status'),
    rule('get update', '*', '*/scale'),
    rule('list', '', 'pods'),
    rule('list', 'metrics.k8s.io', 'pods'),
    rule('get list', 'custom.metrics.k8s.io', '*'),
    rule('get list', 'external.metrics.k8s.io', '*'),
    eventsRule(),
  ],
  'job-controller': [
    rule('get list watch update patch', 'batch', 'jobs'),
    rule('update', 'batch', 'jobs/status'),
    rule('update', 'batch', 'jobs/finalizers'),
    rule('list watch create delete patch', '', 'pods'),
    eventsRule(),
  ],
  'namespace-controller': [
    rule('get list watch delete', '', 'namespaces'),
    rule('update', '', 'namespaces/finalize namespaces/status'),
    rule('get list delete deletecollection', '*', '*'),
  ],
  'node-controller': [
    rule('get list update delete patch', '', 'nodes'),
    rule('patch update', '', 'nodes/status'),
    rule('patch update', '', 'pods/status'),
    rule('list get delete', '', 'pods'),
    eventsRule(),
  ],
  'persistent-volume-binder': [
    rule('get list watch update create delete', '', 'persistentvolumes'),
    rule('update', '', 'persistentvolumes/status'),
    rule('get list watch update', '', 'persistentvolumeclaims'),
    rule('update', '', 'persistentvolumeclaims/status'),
    rule('list watch get create delete', '', 'pods'),
    rule(READ, 'storage.k8s.io', 'storageclasses'),
    rule('get create update delete', '', 'endpoints'),
    rule('get create delete', '', 'services'),
    rule('get', '', 'secrets'),
    rule('get list', '', 'nodes'),
    rule('watch', '', 'events'),
    eventsRule(),
  ],
  'pod-garbage-collector': [rule('list watch delete', '', 'pods'), rule('get list', '', 'nodes'), rule('patch', '', 'pods/status')],
  'replicaset-controller': [
    rule('get list watch update', appsExt, 'replicasets'),
    rule('update', appsExt, 'replicasets/status'),
    rule('update', appsExt, 'replicasets/finalizers'),
    rule('list watch patch create delete', '', 'pods'),
    eventsRule(),
  ],
  'replication-controller': [
    rule('get list watch update', '', 'replicationcontrollers'),
    rule('update', '', 'replicationcontrollers/status'),
    rule('update', '', 'replicationcontrollers/finalizers'),
    rule('list watch patch create delete', '', 'pods'),
    eventsRule(),
  ],
  // Quota counts anything, so it sees everything.
  'resourcequota-controller': [rule('list watch', '*', '*'), rule('update', '', 'resourcequotas/status'), eventsRule()],
  'route-controller': [rule('list watch', '', 'nodes'), rule('patch', '', 'nodes/status'), eventsRule()],
  'service-account-controller': [rule('create', '', 'serviceaccounts'), eventsRule()],
  'service-controller': [rule(READ, '', 'services'), rule('patch update', '', 'services/status'), rule('list watch', '', 'nodes'), eventsRule()],
  'statefulset-controller': [
    rule('list watch', '', 'pods'),
    rule(READ, 'apps', 'statefulsets'),
    rule('update', 'apps', 'statefulsets/status'),
    rule('update', 'apps', 'statefulsets/finalizers'),
    rule('get create delete update patch', '', 'pods'),
    rule('get create delete update patch list watch', 'apps', 'controllerrevisions'),
    rule('get create', '', 'persistentvolumeclaims'),
    eventsRule(),
    // StatefulSetAutoDeletePVC (on by default).
    rule('update delete', '', 'persistentvolumeclaims'),
  ],
  'ttl-controller': [rule('update patch list watch', '', 'nodes'), eventsRule()],
  'certificate-controller': [
    rule('get list watch delete', 'certificates.k8s.io', 'certificatesigningrequests'),
    rule('update', 'certificates.k8s.io', 'certificatesigningrequests/status certificatesigningrequests/approval'),
    rule('approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/kube-apiserver-client-kubelet'),
    rule('sign', 'certificates.k8s.io', 'signers', ALL_SIGNERS),
    rule('create', 'authorization.k8s.io', 'subjectaccessreviews'),
    eventsRule(),
  ],
  'pvc-protection-controller': [rule('get list watch update', '', 'persistentvolumeclaims'), rule('list watch get', '', 'pods'), eventsRule()],
  'pv-protection-controller': [rule('get list watch update', '', 'persistentvolumes'), eventsRule()],
  'ttl-after-finished-controller': [rule('get list watch delete', 'batch', 'jobs'), eventsRule()],
  'root-ca-cert-publisher': [rule('create update', '', 'configmaps'), eventsRule()],
  'validatingadmissionpolicy-status-controller': [
    rule(READ, 'admissionregistration.k8s.io', 'validatingadmissionpolicies'),
    rule('get patch update', 'admissionregistration.k8s.io', 'validatingadmissionpolicies/status'),
    eventsRule(),
  ],
  'legacy-service-account-token-cleaner': [
    rule('get', '', 'configmaps', 'kube-apiserver-legacy-service-account-token-tracking'),
    rule('patch delete', '', 'secrets'),
  ],
};

/** The controller names that have a bootstrap role (the ServiceAccount names in kube-system). */
export const CONTROLLER_ROLE_NAMES: readonly string[] = Object.keys(CONTROLLERS);

export function controllerRoles(): ClusterRole[] {
  return Object.entries(CONTROLLERS).map(([name, rules]) => clusterRole(CONTROLLER_ROLE_PREFIX + name, structuredClone(rules)));
}

export function controllerRoleBindings(): ClusterRoleBinding[] {
  return CONTROLLER_ROLE_NAMES.map((name) => clusterRoleBinding(CONTROLLER_ROLE_PREFIX + name, [serviceAccount('kube-system', name)]));
}
