// OpenAPI v3 `components.schemas` for the built-in kinds, built from the protobuf field tables (one source of
// truth for field names and nesting). Named Go types become `$ref`s to definitions named as Kubernetes names
// them (io.k8s.api.core.v1.PodSpec); anonymous tables are inlined. Enough for `kubectl explain`.
import type { Field, Message, Scalar } from './schema.ts';
import * as apps from './tables/apps-and-others.ts';
import * as core from './tables/core.ts';
import * as meta from './tables/meta.ts';
import * as pod from './tables/pod-spec.ts';
import * as rbac from './tables/rbac.ts';
import * as certificates from './tables/certificates.ts';

export type Schema = Record<string, unknown>;

const CORE = 'io.k8s.api.core.v1.';
const APPS = 'io.k8s.api.apps.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const RBAC = 'io.k8s.api.rbac.v1.';
const CERTIFICATES = 'io.k8s.api.certificates.v1.';

/** Go type name of each named table. */
const NAMES = new Map<Message, string>([
  [meta.ObjectMeta, `${META}ObjectMeta`],
  [meta.OwnerReference, `${META}OwnerReference`],
  [meta.ManagedFieldsEntry, `${META}ManagedFieldsEntry`],
  [meta.LabelSelector, `${META}LabelSelector`],
  [meta.LabelSelectorRequirement, `${META}LabelSelectorRequirement`],
  [meta.Time, `${META}Time`],
  [meta.MicroTime, `${META}MicroTime`],
  [meta.FieldsV1, `${META}FieldsV1`],
  [meta.Quantity, 'io.k8s.apimachinery.pkg.api.resource.Quantity'],
  [meta.IntOrString, 'io.k8s.apimachinery.pkg.util.intstr.IntOrString'],
  [core.ObjectReference, `${CORE}ObjectReference`],
  [core.Namespace, `${CORE}Namespace`],
  [core.NamespaceCondition, `${CORE}NamespaceCondition`],
  [core.ConfigMap, `${CORE}ConfigMap`],
  [core.Secret, `${CORE}Secret`],
  [core.ServiceAccount, `${CORE}ServiceAccount`],
  [core.Service, `${CORE}Service`],
  [core.ServiceSpec, `${CORE}ServiceSpec`],
  [core.ServicePort, `${CORE}ServicePort`],
  [core.ServiceStatus, `${CORE}ServiceStatus`],
  [core.SessionAffinityConfig, `${CORE}SessionAffinityConfig`],
  [core.LoadBalancerIngress, `${CORE}LoadBalancerIngress`],
  [core.PortStatus, `${CORE}PortStatus`],
  [core.Pod, `${CORE}Pod`],
  [core.PodStatus, `${CORE}PodStatus`],
  [core.PodCondition, `${CORE}PodCondition`],
  [core.Binding, `${CORE}Binding`],
  [pod.PodSpec, `${CORE}PodSpec`],
  [pod.PodTemplateSpec, `${CORE}PodTemplateSpec`],
  [pod.Container, `${CORE}Container`],
  [pod.EphemeralContainer, `${CORE}EphemeralContainer`],
  [pod.ContainerPort, `${CORE}ContainerPort`],
  [pod.EnvVar, `${CORE}EnvVar`],
  [pod.EnvVarSource, `${CORE}EnvVarSource`],
  [pod.EnvFromSource, `${CORE}EnvFromSource`],
  [pod.VolumeMount, `${CORE}VolumeMount`],
  [pod.ResourceRequirements, `${CORE}ResourceRequirements`],
  [pod.Probe, `${CORE}Probe`],
  [pod.Lifecycle, `${CORE}Lifecycle`],
  [pod.LifecycleHandler, `${CORE}LifecycleHandler`],
  [pod.ExecAction, `${CORE}ExecAction`],
  [pod.HTTPGetAction, `${CORE}HTTPGetAction`],
  [pod.TCPSocketAction, `${CORE}TCPSocketAction`],
  [pod.SecurityContext, `${CORE}SecurityContext`],
  [pod.PodSecurityContext, `${CORE}PodSecurityContext`],
  [pod.Volume, `${CORE}Volume`],
  [pod.KeyToPath, `${CORE}KeyToPath`],
  [pod.Toleration, `${CORE}Toleration`],
  [pod.Affinity, `${CORE}Affinity`],
  [pod.NodeAffinity, `${CORE}NodeAffinity`],
  [pod.PodAffinity, `${CORE}PodAffinity`],
  [pod.TopologySpreadConstraint, `${CORE}TopologySpreadConstraint`],
  [pod.HostAlias, `${CORE}HostAlias`],
  [pod.PodDNSConfig, `${CORE}PodDNSConfig`],
  [pod.LocalObjectReference, `${CORE}LocalObjectReference`],
  [apps.Deployment, `${APPS}Deployment`],
  [apps.DeploymentSpec, `${APPS}DeploymentSpec`],
  [apps.DeploymentStatus, `${APPS}DeploymentStatus`],
  [apps.DeploymentCondition, `${APPS}DeploymentCondition`],
  [apps.RollingUpdateDeployment, `${APPS}RollingUpdateDeployment`],
  [apps.ReplicaSet, `${APPS}ReplicaSet`],
  [apps.ReplicaSetStatus, `${APPS}ReplicaSetStatus`],
  [apps.ReplicaSetCondition, `${APPS}ReplicaSetCondition`],
  [apps.PriorityClass, 'io.k8s.api.scheduling.v1.PriorityClass'],
  [apps.Lease, 'io.k8s.api.coordination.v1.Lease'],
  [apps.LeaseSpec, 'io.k8s.api.coordination.v1.LeaseSpec'],
  [rbac.Role, `${RBAC}Role`],
  [rbac.ClusterRole, `${RBAC}ClusterRole`],
  [rbac.RoleBinding, `${RBAC}RoleBinding`],
  [rbac.ClusterRoleBinding, `${RBAC}ClusterRoleBinding`],
  [rbac.PolicyRule, `${RBAC}PolicyRule`],
  [rbac.AggregationRule, `${RBAC}AggregationRule`],
  [rbac.RoleRef, `${RBAC}RoleRef`],
  [rbac.Subject, `${RBAC}Subject`],
  [certificates.CertificateSigningRequest, `${CERTIFICATES}CertificateSigningRequest`],
  [certificates.CertificateSigningRequestSpec, `${CERTIFICATES}CertificateSigningRequestSpec`],
  [certificates.CertificateSigningRequestStatus, `${CERTIFICATES}CertificateSigningRequestStatus`],
  [certificates.CertificateSigningRequestCondition, `${CERTIFICATES}CertificateSigningRequestCondition`],
]);

/** The OpenAPI definition name of a named table (io.k8s.api.core.v1.PodSpec), undefined for anonymous ones. */
export function definitionName(m: Message): string | undefined {
  return NAMES.get(m);
}

/** The top-level kinds, by "group/version/Kind" (core group ""), with Kubernetes' one-line descriptions. */
const KINDS: [string, string, string, Message, string][] = [
  ['', 'v1', 'Namespace', core.Namespace, 'Namespace provides a scope for Names. Use of multiple namespaces is optional.'],
  ['', 'v1', 'ConfigMap', core.ConfigMap, 'ConfigMap holds configuration data for pods to consume.'],
  ['', 'v1', 'Secret', core.Secret, 'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.'],
  ['', 'v1', 'ServiceAccount', core.ServiceAccount, 'ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets'],
  ['', 'v1', 'Service', core.Service, 'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.'],
  ['', 'v1', 'Pod', core.Pod, 'Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.'],
  ['', 'v1', 'Binding', core.Binding, 'Binding ties one object to another; for example, a pod is bound to a node by a scheduler.'],
  ['apps', 'v1', 'Deployment', apps.Deployment, 'Deployment enables declarative updates for Pods and ReplicaSets.'],
  ['apps', 'v1', 'ReplicaSet', apps.ReplicaSet, 'ReplicaSet ensures that a specified number of pod replicas are running at any given time.'],
  ['scheduling.k8s.io', 'v1', 'PriorityClass', apps.PriorityClass, 'PriorityClass defines mapping from a priority class name to the priority integer value. The value can be any valid integer.'],
  ['coordination.k8s.io', 'v1', 'Lease', apps.Lease, 'Lease defines a lease concept.'],
  ['rbac.authorization.k8s.io', 'v1', 'Role', rbac.Role, 'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.'],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRole', rbac.ClusterRole, 'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.'],
  [
    'rbac.authorization.k8s.io',
    'v1',
    'RoleBinding',
    rbac.RoleBinding,
    'RoleBinding references a role, but does not contain it.  It can reference a Role in the same namespace or a ClusterRole in the global namespace. It adds who information via Subjects and namespace information by which namespace it exists in.  RoleBindings in a given namespace only have effect in that namespace.',
  ],
  [
    'certificates.k8s.io',
    'v1',
    'CertificateSigningRequest',
    certificates.CertificateSigningRequest,
    'CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by submitting a certificate signing request, and having it asynchronously approved and issued.',
  ],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', rbac.ClusterRoleBinding, 'ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference a ClusterRole in the global namespace, and adds who information via Subject.'],
];

const SCALARS: Record<Scalar, Schema> = {
  string: { type: 'string' },
  bytes: { type: 'string', format: 'byte' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  bool: { type: 'boolean' },
  double: { type: 'number', format: 'double' },
};

/** Special types whose JSON is one value, not their protobuf fields. */
function specialSchema(m: Message): Schema | undefined {
  if (m === meta.Time || m === meta.MicroTime) return { type: 'string', format: 'date-time', description: 'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON (RFC 3339).' };
  if (m === meta.Quantity) return { type: 'string', description: 'Quantity is a fixed-point representation of a number, e.g. 100m or 128Mi.' };
  if (m === meta.IntOrString) return { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], description: 'IntOrString is a type that can hold an int32 or a string.' };
  if (m === meta.FieldsV1) return { type: 'object', description: 'FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.' };
  // ExtraValue is a Go []string: its JSON is the list.
  if (m === certificates.ExtraValue) return { type: 'array', items: { type: 'string' } };
  return m.toJSON ? { type: 'object' } : undefined;
}

class Builder {
  readonly schemas: Record<string, Schema> = {};

  ref(m: Message): Schema {
    const name = NAMES.get(m);
    if (!name) return this.objectSchema(m);
    if (!(name in this.schemas)) {
      this.schemas[name] = {}; // reserved first: tables are recursive (JSONSchemaProps-like cycles)
      this.schemas[name] = specialSchema(m) ?? this.objectSchema(m);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  objectSchema(m: Message): Schema {
    const special = specialSchema(m);
    if (special) return special;
    const properties: Record<string, Schema> = {};
    this.addFields(m, properties);
    return { type: 'object', properties };
  }

  private addFields(m: Message, properties: Record<string, Schema>): void {
    for (const f of Object.values(m.fields)) {
      if (f.inline && typeof f.type === 'object' && 'msg' in f.type) this.addFields(f.type.msg(), properties);
      else properties[f.name] = this.fieldSchema(f);
    }
  }

  private fieldSchema(f: Field): Schema {
    const t = f.type;
    let one: Schema;
    if (typeof t === 'string') one = SCALARS[t];
    else if ('msg' in t) one = this.ref(t.msg());
    else one = { type: 'object', additionalProperties: typeof t.map === 'string' ? SCALARS[t.map] : this.ref(t.map.msg()) };
    return f.repeated ? { type: 'array', items: one } : one;
  }
}

const TYPE_META: Record<string, Schema> = {
  apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
  kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
};

/** components.schemas for one group version: its kinds plus every named type they reach. */
export function schemasFor(group: string, version: string): { schemas: Record<string, Schema>; refs: Map<string, string> } {
  const b = new Builder();
  const refs = new Map<string, string>();
  for (const [g, v, kind, m, description] of KINDS) {
    if (g !== group || v !== version) continue;
    const name = NAMES.get(m) ?? `${kind}`;
    b.ref(m);
    const s = b.schemas[name] as Schema;
    b.schemas[name] = {
      description,
      ...s,
      properties: { ...TYPE_META, ...(s.properties as Record<string, Schema>) },
      'x-kubernetes-group-version-kind': [{ group, kind, version }],
    };
    refs.set(kind, `#/components/schemas/${name}`);
  }
  return { schemas: b.schemas, refs };
}
