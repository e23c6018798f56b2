// The one table of API resources kemu serves. Routes, discovery, clients, informers and validation are keyed
// on it; no other file spells a kind or plural string literal for lookup purposes.

export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

export interface SubresourceInfo {
  name: 'status' | 'scale' | 'binding' | 'eviction' | 'log' | 'finalize' | 'ephemeralcontainers' | 'token' | 'approval' | 'exec' | 'attach' | 'portforward' | 'proxy';
  group: string;
  version: string;
  kind: string;
  verbs: readonly Verb[];
}

export interface ResourceInfo {
  group: string; // '' for core
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: readonly string[];
  categories: readonly string[];
  verbs: readonly Verb[];
  subresources: readonly SubresourceInfo[];
}

const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const READ_ONLY: readonly Verb[] = ['get', 'list'];
const STATUS_VERBS: readonly Verb[] = ['get', 'patch', 'update'];
/** The connect subresources' verbs in discovery (proxy: every method). */
const PROXY_VERBS: readonly Verb[] = ['create', 'delete', 'get', 'patch', 'update'];

/** A row of the resource table (also what a client builds for a kind it found through discovery). */
export function resourceInfo(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  opts: {
    shortNames?: string[];
    categories?: string[];
    verbs?: readonly Verb[];
    status?: boolean;
    scale?: boolean;
    extra?: SubresourceInfo[];
    /** Discovery's singularName; the lower-cased kind otherwise. */
    singular?: string;
  } = {},
): ResourceInfo {
  const subresources: SubresourceInfo[] = [];
  if (opts.status) subresources.push({ name: 'status', group, version, kind, verbs: STATUS_VERBS });
  if (opts.scale)
    subresources.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: STATUS_VERBS });
  subresources.push(...(opts.extra ?? []));
  return {
    group,
    version,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: opts.singular ?? kind.toLowerCase(),
    namespaced,
    shortNames: opts.shortNames ?? [],
    categories: opts.categories ?? [],
    verbs: opts.verbs ?? ALL_VERBS,
    subresources,
  };
}

const res = resourceInfo;

export const RESOURCES: readonly ResourceInfo[] = [
  res('', 'v1', 'Namespace', 'namespaces', false, {
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    status: true,
    extra: [{ name: 'finalize', group: '', version: 'v1', kind: 'Namespace', verbs: ['update'] }],
  }),
  res('', 'v1', 'Pod', 'pods', true, {
    shortNames: ['po'],
    categories: ['all'],
    status: true,
    extra: [
      { name: 'binding', group: '', version: 'v1', kind: 'Binding', verbs: ['create'] },
      { name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
      { name: 'log', group: '', version: 'v1', kind: 'Pod', verbs: ['get'] },
      { name: 'ephemeralcontainers', group: '', version: 'v1', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
      { name: 'exec', group: '', version: 'v1', kind: 'PodExecOptions', verbs: ['create', 'get'] },
      { name: 'attach', group: '', version: 'v1', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
      { name: 'portforward', group: '', version: 'v1', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
      { name: 'proxy', group: '', version: 'v1', kind: 'PodProxyOptions', verbs: PROXY_VERBS },
    ],
  }),
  res('', 'v1', 'Binding', 'bindings', true, { verbs: ['create'] }),
  res('', 'v1', 'Node', 'nodes', false, { shortNames: ['no'], status: true, extra: [{ name: 'proxy', group: '', version: 'v1', kind: 'NodeProxyOptions', verbs: PROXY_VERBS }] }),
  res('', 'v1', 'Service', 'services', true, {
    shortNames: ['svc'],
    categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    status: true,
    extra: [{ name: 'proxy', group: '', version: 'v1', kind: 'ServiceProxyOptions', verbs: PROXY_VERBS }],
  }),
  res('', 'v1', 'Endpoints', 'endpoints', true, { shortNames: ['ep'] }),
  res('', 'v1', 'ConfigMap', 'configmaps', true, { shortNames: ['cm'] }),
  res('', 'v1', 'Secret', 'secrets', true),
  res('', 'v1', 'ServiceAccount', 'serviceaccounts', true, {
    shortNames: ['sa'],
    extra: [{ name: 'token', group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] }],
  }),
  res('', 'v1', 'Event', 'events', true, { shortNames: ['ev'] }),
  res('', 'v1', 'ComponentStatus', 'componentstatuses', false, { shortNames: ['cs'], verbs: READ_ONLY }),
  res('apps', 'v1', 'Deployment', 'deployments', true, {
    shortNames: ['deploy'],
    categories: ['all'],
    status: true,
    scale: true,
  }),
  res('apps', 'v1', 'ReplicaSet', 'replicasets', true, {
    shortNames: ['rs'],
    categories: ['all'],
    status: true,
    scale: true,
  }),
  res('batch', 'v1', 'Job', 'jobs', true, { categories: ['all'], status: true }),
  res('batch', 'v1', 'CronJob', 'cronjobs', true, { shortNames: ['cj'], categories: ['all'], status: true }),
  res('apps', 'v1', 'DaemonSet', 'daemonsets', true, { shortNames: ['ds'], categories: ['all'], status: true }),
  res('apps', 'v1', 'StatefulSet', 'statefulsets', true, {
    shortNames: ['sts'],
    categories: ['all'],
    status: true,
    scale: true,
  }),
  res('apps', 'v1', 'ControllerRevision', 'controllerrevisions', true),
  res('coordination.k8s.io', 'v1', 'Lease', 'leases', true),
  res('discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices', true),
  res('events.k8s.io', 'v1', 'Event', 'events', true, { shortNames: ['ev'] }),
  res('scheduling.k8s.io', 'v1', 'PriorityClass', 'priorityclasses', false, { shortNames: ['pc'] }),
  // Reviews are answered on create and never stored (no get, list or watch), as in Kubernetes.
  res('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false, { verbs: ['create'] }),
  res('authorization.k8s.io', 'v1', 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', false, { verbs: ['create'] }),
  res('authentication.k8s.io', 'v1', 'SelfSubjectReview', 'selfsubjectreviews', false, { verbs: ['create'] }),
  res('authentication.k8s.io', 'v1', 'TokenReview', 'tokenreviews', false, { verbs: ['create'] }),
  res('authorization.k8s.io', 'v1', 'SubjectAccessReview', 'subjectaccessreviews', false, { verbs: ['create'] }),
  res('authorization.k8s.io', 'v1', 'LocalSubjectAccessReview', 'localsubjectaccessreviews', true, { verbs: ['create'] }),
  res('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false),
  res('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', false),
  res('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', true),
  res('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', true),
  res('certificates.k8s.io', 'v1', 'CertificateSigningRequest', 'certificatesigningrequests', false, {
    shortNames: ['csr'],
    status: true,
    extra: [{ name: 'approval', group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest', verbs: STATUS_VERBS }],
  }),
  res('', 'v1', 'PersistentVolume', 'persistentvolumes', false, { shortNames: ['pv'], status: true }),
  res('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true, { shortNames: ['pvc'], status: true }),
  res('storage.k8s.io', 'v1', 'StorageClass', 'storageclasses', false, { shortNames: ['sc'] }),
  res('storage.k8s.io', 'v1', 'CSIDriver', 'csidrivers', false),
  res('storage.k8s.io', 'v1', 'CSINode', 'csinodes', false),
  res('storage.k8s.io', 'v1', 'VolumeAttachment', 'volumeattachments', false, { status: true }),
  res('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true, { shortNames: ['pdb'], status: true }),
  res('', 'v1', 'ReplicationController', 'replicationcontrollers', true, {
    shortNames: ['rc'],
    categories: ['all'],
    status: true,
    scale: true,
  }),
  // autoscaling/v2 first: the preferred and storage version; v1 is served as a conversion of it.
  res('autoscaling', 'v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true, { shortNames: ['hpa'], categories: ['all'], status: true }),
  res('autoscaling', 'v1', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true, { shortNames: ['hpa'], categories: ['all'], status: true }),
  res('', 'v1', 'PodTemplate', 'podtemplates', true),
  res('', 'v1', 'LimitRange', 'limitranges', true, { shortNames: ['limits'] }),
  res('', 'v1', 'ResourceQuota', 'resourcequotas', true, { shortNames: ['quota'], status: true }),
  res('networking.k8s.io', 'v1', 'Ingress', 'ingresses', true, { shortNames: ['ing'], status: true }),
  res('networking.k8s.io', 'v1', 'IngressClass', 'ingressclasses', false),
  res('networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies', true, { shortNames: ['netpol'] }),
  res('node.k8s.io', 'v1', 'RuntimeClass', 'runtimeclasses', false),
  res('admissionregistration.k8s.io', 'v1', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false, { categories: ['api-extensions'] }),
  res('admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false, { categories: ['api-extensions'] }),
  res('admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicy', 'validatingadmissionpolicies', false, { categories: ['api-extensions'], status: true }),
  res('admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicyBinding', 'validatingadmissionpolicybindings', false, { categories: ['api-extensions'] }),
  res('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', false, {
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    status: true,
  }),
  res('apiregistration.k8s.io', 'v1', 'APIService', 'apiservices', false, { categories: ['api-extensions'], status: true }),
];

/** "apps/v1" or "v1" for the core group. */
export function groupVersion(r: { group: string; version: string }): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

/** "deployments.apps" or "pods": the qualified resource name Kubernetes uses in messages. */
export function qualifiedResource(r: { group: string; plural: string }): string {
  return r.group === '' ? r.plural : `${r.plural}.${r.group}`;
}

export function findResource(group: string, version: string, plural: string): ResourceInfo | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.plural === plural);
}

export function findResourceByKind(apiVersion: string, kind: string): ResourceInfo | undefined {
  return RESOURCES.find((r) => groupVersion(r) === apiVersion && r.kind === kind);
}

/** Named references for code that needs a particular resource (instead of string literals). */
function must(group: string, plural: string, version?: string): ResourceInfo {
  const r = RESOURCES.find((x) => x.group === group && x.plural === plural && (version === undefined || x.version === version));
  if (!r) throw new Error(`resource table lacks ${plural}.${group}`);
  return r;
}

export const R = {
  namespaces: must('', 'namespaces'),
  pods: must('', 'pods'),
  bindings: must('', 'bindings'),
  nodes: must('', 'nodes'),
  services: must('', 'services'),
  endpoints: must('', 'endpoints'),
  configmaps: must('', 'configmaps'),
  secrets: must('', 'secrets'),
  serviceaccounts: must('', 'serviceaccounts'),
  events: must('', 'events'),
  componentstatuses: must('', 'componentstatuses'),
  deployments: must('apps', 'deployments'),
  replicasets: must('apps', 'replicasets'),
  jobs: must('batch', 'jobs'),
  cronjobs: must('batch', 'cronjobs'),
  daemonsets: must('apps', 'daemonsets'),
  statefulsets: must('apps', 'statefulsets'),
  controllerrevisions: must('apps', 'controllerrevisions'),
  leases: must('coordination.k8s.io', 'leases'),
  endpointslices: must('discovery.k8s.io', 'endpointslices'),
  eventsV1: must('events.k8s.io', 'events'),
  priorityclasses: must('scheduling.k8s.io', 'priorityclasses'),
  selfsubjectaccessreviews: must('authorization.k8s.io', 'selfsubjectaccessreviews'),
  selfsubjectrulesreviews: must('authorization.k8s.io', 'selfsubjectrulesreviews'),
  selfsubjectreviews: must('authentication.k8s.io', 'selfsubjectreviews'),
  tokenreviews: must('authentication.k8s.io', 'tokenreviews'),
  subjectaccessreviews: must('authorization.k8s.io', 'subjectaccessreviews'),
  localsubjectaccessreviews: must('authorization.k8s.io', 'localsubjectaccessreviews'),
  clusterroles: must('rbac.authorization.k8s.io', 'clusterroles'),
  clusterrolebindings: must('rbac.authorization.k8s.io', 'clusterrolebindings'),
  roles: must('rbac.authorization.k8s.io', 'roles'),
  rolebindings: must('rbac.authorization.k8s.io', 'rolebindings'),
  certificatesigningrequests: must('certificates.k8s.io', 'certificatesigningrequests'),
  persistentvolumes: must('', 'persistentvolumes'),
  persistentvolumeclaims: must('', 'persistentvolumeclaims'),
  storageclasses: must('storage.k8s.io', 'storageclasses'),
  csidrivers: must('storage.k8s.io', 'csidrivers'),
  csinodes: must('storage.k8s.io', 'csinodes'),
  volumeattachments: must('storage.k8s.io', 'volumeattachments'),
  poddisruptionbudgets: must('policy', 'poddisruptionbudgets'),
  replicationcontrollers: must('', 'replicationcontrollers'),
  horizontalpodautoscalers: must('autoscaling', 'horizontalpodautoscalers', 'v2'),
  horizontalpodautoscalersV1: must('autoscaling', 'horizontalpodautoscalers', 'v1'),
  podtemplates: must('', 'podtemplates'),
  limitranges: must('', 'limitranges'),
  resourcequotas: must('', 'resourcequotas'),
  ingresses: must('networking.k8s.io', 'ingresses'),
  ingressclasses: must('networking.k8s.io', 'ingressclasses'),
  networkpolicies: must('networking.k8s.io', 'networkpolicies'),
  runtimeclasses: must('node.k8s.io', 'runtimeclasses'),
  mutatingwebhookconfigurations: must('admissionregistration.k8s.io', 'mutatingwebhookconfigurations'),
  validatingwebhookconfigurations: must('admissionregistration.k8s.io', 'validatingwebhookconfigurations'),
  validatingadmissionpolicies: must('admissionregistration.k8s.io', 'validatingadmissionpolicies'),
  validatingadmissionpolicybindings: must('admissionregistration.k8s.io', 'validatingadmissionpolicybindings'),
  customresourcedefinitions: must('apiextensions.k8s.io', 'customresourcedefinitions'),
  apiservices: must('apiregistration.k8s.io', 'apiservices'),
} as const;
