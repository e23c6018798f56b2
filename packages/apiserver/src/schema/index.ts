// The schema of each built-in kind, by group version and kind: what protobuf decoding, JSON field validation,
// strategic merge patch, server-side apply and the published OpenAPI look up. Subresource kinds (Scale,
// Eviction, Binding, TokenRequest) and the review kinds are here too; DeleteOptions is read under any group.
import type { ResourceInfo } from '@kemu/api';
import { Deployment, Eviction, Lease, PriorityClass, ReplicaSet, Scale } from './kinds/apps-and-others.ts';
import { CertificateSigningRequest } from './kinds/certificates.ts';
import { ComponentStatus, TokenRequest } from './kinds/component-status-and-token-request.ts';
import { Endpoints, Event } from './kinds/core-endpoints-events.ts';
import { Binding, ConfigMap, Namespace, Pod, Secret, Service, ServiceAccount } from './kinds/core.ts';
import { EndpointSlice, Event as EventV1 } from './kinds/discovery-events.ts';
import { DeleteOptions } from './kinds/meta.ts';
import { Node } from './kinds/node.ts';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from './kinds/rbac.ts';
import { LocalSubjectAccessReview, SelfSubjectAccessReview, SelfSubjectReview, SelfSubjectRulesReview, SubjectAccessReview, TokenReview } from './kinds/reviews.ts';
import type { KindSchema, Struct } from './types.ts';

export type { Field, FieldType, Format, KindSchema, ListType, PatchTags, Scalar, Struct } from './types.ts';

const kind = (group: string, version: string, k: string, struct: Struct): KindSchema => ({ group, version, kind: k, struct });

/** Every built-in kind with a schema. */
export const KINDS: readonly KindSchema[] = [
  kind('', 'v1', 'Namespace', Namespace),
  kind('', 'v1', 'ConfigMap', ConfigMap),
  kind('', 'v1', 'Secret', Secret),
  kind('', 'v1', 'ServiceAccount', ServiceAccount),
  kind('', 'v1', 'Service', Service),
  kind('', 'v1', 'Pod', Pod),
  kind('', 'v1', 'Binding', Binding),
  kind('', 'v1', 'ComponentStatus', ComponentStatus),
  kind('', 'v1', 'Node', Node),
  kind('', 'v1', 'Endpoints', Endpoints),
  kind('', 'v1', 'Event', Event),
  kind('discovery.k8s.io', 'v1', 'EndpointSlice', EndpointSlice),
  kind('events.k8s.io', 'v1', 'Event', EventV1),
  kind('apps', 'v1', 'Deployment', Deployment),
  kind('apps', 'v1', 'ReplicaSet', ReplicaSet),
  kind('policy', 'v1', 'Eviction', Eviction),
  kind('autoscaling', 'v1', 'Scale', Scale),
  kind('scheduling.k8s.io', 'v1', 'PriorityClass', PriorityClass),
  kind('coordination.k8s.io', 'v1', 'Lease', Lease),
  kind('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', SelfSubjectAccessReview),
  kind('authorization.k8s.io', 'v1', 'SelfSubjectRulesReview', SelfSubjectRulesReview),
  kind('authentication.k8s.io', 'v1', 'SelfSubjectReview', SelfSubjectReview),
  kind('authentication.k8s.io', 'v1', 'TokenReview', TokenReview),
  kind('authentication.k8s.io', 'v1', 'TokenRequest', TokenRequest),
  kind('authorization.k8s.io', 'v1', 'SubjectAccessReview', SubjectAccessReview),
  kind('authorization.k8s.io', 'v1', 'LocalSubjectAccessReview', LocalSubjectAccessReview),
  kind('rbac.authorization.k8s.io', 'v1', 'Role', Role),
  kind('rbac.authorization.k8s.io', 'v1', 'ClusterRole', ClusterRole),
  kind('rbac.authorization.k8s.io', 'v1', 'RoleBinding', RoleBinding),
  kind('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', ClusterRoleBinding),
  kind('certificates.k8s.io', 'v1', 'CertificateSigningRequest', CertificateSigningRequest),
];

const apiVersionOf = (k: KindSchema) => (k.group === '' ? k.version : `${k.group}/${k.version}`);
const BY_GVK = new Map(KINDS.map((k) => [`${apiVersionOf(k)}/${k.kind}`, k.struct]));

/** The root struct of apiVersion/kind; DeleteOptions under any group version. */
export function schemaOf(apiVersion: string, kind: string): Struct | undefined {
  const direct = BY_GVK.get(`${apiVersion}/${kind}`);
  if (direct) return direct;
  // Typed clients send DeleteOptions under the group version they talk to, or as meta.k8s.io/v1.
  if (kind === 'DeleteOptions') return DeleteOptions;
  return undefined;
}

/** The root struct of a resource's kind. */
export function schemaOfResource(r: ResourceInfo | undefined): Struct | undefined {
  if (!r) return undefined;
  return BY_GVK.get(`${r.group === '' ? r.version : `${r.group}/${r.version}`}/${r.kind}`);
}

export { DeleteOptions };
