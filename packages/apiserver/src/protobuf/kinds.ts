// Which typed messages this server can read from protobuf, keyed by the envelope's apiVersion and kind
// (the protobuf counterpart of Go's runtime.Scheme). A kind missing here is refused with a 415 naming it.
import type { Message } from './schema.ts';
import { Deployment, Eviction, Lease, PriorityClass, ReplicaSet, Scale } from './tables/apps-and-others.ts';
import { Binding, ConfigMap, Namespace, Pod, Secret, Service, ServiceAccount } from './tables/core.ts';
import { Endpoints, Event } from './tables/core-endpoints-events.ts';
import { EndpointSlice, Event as EventV1 } from './tables/discovery-events.ts';
import { DeleteOptions } from './tables/meta.ts';
import { Node } from './tables/node.ts';
import { LocalSubjectAccessReview, SelfSubjectAccessReview, SelfSubjectReview, SelfSubjectRulesReview, SubjectAccessReview } from './tables/reviews.ts';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from './tables/rbac.ts';
import { CertificateSigningRequest } from './tables/certificates.ts';

const KINDS: ReadonlyMap<string, Message> = new Map<string, Message>([
  ['v1/Namespace', Namespace],
  ['v1/ConfigMap', ConfigMap],
  ['v1/Secret', Secret],
  ['v1/ServiceAccount', ServiceAccount],
  ['v1/Service', Service],
  ['v1/Pod', Pod],
  ['v1/Binding', Binding],
  ['v1/Node', Node],
  ['v1/Endpoints', Endpoints],
  ['v1/Event', Event],
  ['discovery.k8s.io/v1/EndpointSlice', EndpointSlice],
  ['events.k8s.io/v1/Event', EventV1],
  ['apps/v1/Deployment', Deployment],
  ['apps/v1/ReplicaSet', ReplicaSet],
  ['policy/v1/Eviction', Eviction],
  ['autoscaling/v1/Scale', Scale],
  ['scheduling.k8s.io/v1/PriorityClass', PriorityClass],
  ['coordination.k8s.io/v1/Lease', Lease],
  ['authorization.k8s.io/v1/SelfSubjectAccessReview', SelfSubjectAccessReview],
  ['authorization.k8s.io/v1/SelfSubjectRulesReview', SelfSubjectRulesReview],
  ['authentication.k8s.io/v1/SelfSubjectReview', SelfSubjectReview],
  ['authorization.k8s.io/v1/SubjectAccessReview', SubjectAccessReview],
  ['authorization.k8s.io/v1/LocalSubjectAccessReview', LocalSubjectAccessReview],
  ['rbac.authorization.k8s.io/v1/Role', Role],
  ['rbac.authorization.k8s.io/v1/ClusterRole', ClusterRole],
  ['rbac.authorization.k8s.io/v1/RoleBinding', RoleBinding],
  ['rbac.authorization.k8s.io/v1/ClusterRoleBinding', ClusterRoleBinding],
  ['certificates.k8s.io/v1/CertificateSigningRequest', CertificateSigningRequest],
]);

export function protobufSchema(apiVersion: string, kind: string): Message | undefined {
  const direct = KINDS.get(`${apiVersion}/${kind}`);
  if (direct) return direct;
  // Typed clients encode DeleteOptions under the group version they talk to, or as meta.k8s.io/v1.
  if (kind === 'DeleteOptions') return DeleteOptions;
  return undefined;
}

export function supportedProtobufKinds(): string[] {
  return [...KINDS.keys()];
}
