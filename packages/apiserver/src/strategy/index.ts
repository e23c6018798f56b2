// strategyFor(resource): the strategy (defaults, preparation, validation, selectable fields, Table printer)
// for every entry of the resource table, and a generic one (metadata validation, status kept) for others.
import { RESOURCES } from '@kemu/api';
import type { ResourceInfo } from '@kemu/api';
import type { ResourceStrategy } from './types.ts';
import { buildStrategy } from './common.ts';
import { podStrategy } from './pods.ts';
import { deploymentStrategy } from './deployments.ts';
import { replicaSetStrategy } from './replicasets.ts';
import { controllerRevisionStrategy, daemonSetStrategy, statefulSetStrategy } from './apps-sets.ts';
import { serviceStrategy } from './services.ts';
import { namespaceStrategy } from './namespaces.ts';
import { nodeStrategy } from './nodes.ts';
import { configMapStrategy } from './configmaps.ts';
import { secretStrategy } from './secrets.ts';
import { serviceAccountStrategy } from './serviceaccounts.ts';
import { endpointsStrategy } from './endpoints.ts';
import { eventStrategy, eventsV1Strategy } from './events.ts';
import { leaseStrategy } from './leases.ts';
import { endpointSliceStrategy } from './endpointslices.ts';
import { priorityClassStrategy } from './priorityclasses.ts';
import { validatingAdmissionPolicyBindingStrategy, validatingAdmissionPolicyStrategy } from './admission-policies.ts';
import { bindingStrategy } from './bindings.ts';
import { componentStatusStrategy } from './componentstatuses.ts';
import {
  localSubjectAccessReviewStrategy,
  selfSubjectAccessReviewStrategy,
  selfSubjectReviewStrategy,
  selfSubjectRulesReviewStrategy,
  subjectAccessReviewStrategy,
  tokenReviewStrategy,
} from './reviews.ts';
import { clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategy } from './rbac.ts';
import { certificateSigningRequestStrategy } from './certificates.ts';
import { jobStrategy } from './jobs.ts';
import { cronJobStrategy } from './cronjobs.ts';
import {
  csiDriverStrategy,
  csiNodeStrategy,
  persistentVolumeClaimStrategy,
  persistentVolumeStrategy,
  storageClassStrategy,
  volumeAttachmentStrategy,
} from './storage.ts';
import { POLICY_STRATEGIES } from './policy.ts';
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from './admissionregistration.ts';
import { customResourceDefinitionStrategy } from './apiextensions.ts';
import { horizontalPodAutoscalerStrategy, horizontalPodAutoscalerV1Strategy } from './autoscaling.ts';
import { apiServiceStrategy } from './apiregistration.ts';
import { customResourceStrategy, registerCustomResourceValidator } from '../crd/strategy.ts';
import { customResourceDecoder } from '../crd/decode.ts';
import { celRulesValidatorFactory } from '../crd/cel-rules.ts';
import { registerKindDecoder } from '../registry/json-fields.ts';
import { schemaValidatorFactory } from '../crd/schema-validator.ts';
import { validateMetaOnly } from '../validation/misc.ts';
import { validateObjectMeta } from '../validation/meta.ts';
import { isValidPathSegmentName } from '@kemu/api';
import { printerFor } from '../printers/index.ts';

const STRATEGIES: ResourceStrategy[] = [
  podStrategy,
  deploymentStrategy,
  replicaSetStrategy,
  serviceStrategy,
  namespaceStrategy,
  nodeStrategy,
  configMapStrategy,
  secretStrategy,
  serviceAccountStrategy,
  endpointsStrategy,
  eventStrategy,
  eventsV1Strategy,
  leaseStrategy,
  endpointSliceStrategy,
  priorityClassStrategy,
  bindingStrategy,
  componentStatusStrategy,
  selfSubjectAccessReviewStrategy,
  selfSubjectRulesReviewStrategy,
  selfSubjectReviewStrategy,
  subjectAccessReviewStrategy,
  localSubjectAccessReviewStrategy,
  roleStrategy,
  clusterRoleStrategy,
  roleBindingStrategy,
  clusterRoleBindingStrategy,
  tokenReviewStrategy,
  certificateSigningRequestStrategy,
  jobStrategy,
  cronJobStrategy,
  daemonSetStrategy,
  statefulSetStrategy,
  controllerRevisionStrategy,
  persistentVolumeStrategy,
  persistentVolumeClaimStrategy,
  storageClassStrategy,
  csiDriverStrategy,
  csiNodeStrategy,
  volumeAttachmentStrategy,
  ...POLICY_STRATEGIES,
  mutatingWebhookConfigurationStrategy,
  validatingWebhookConfigurationStrategy,
  validatingAdmissionPolicyStrategy,
  validatingAdmissionPolicyBindingStrategy,
  customResourceDefinitionStrategy,
  horizontalPodAutoscalerStrategy,
  horizontalPodAutoscalerV1Strategy,
  apiServiceStrategy,
];

const keyOf = (r: { group: string; version: string; plural: string }): string => `${r.plural}.${r.group}/${r.version}`;
const byKey = new Map<string, ResourceStrategy>(STRATEGIES.map((s) => [keyOf(s.resource), s]));

function withPrinter(s: ResourceStrategy): ResourceStrategy {
  const printer = printerFor(s.resource);
  return printer ? { ...s, printer } : s;
}

const cache = new Map<string, ResourceStrategy>();

/** A generic strategy: metadata validation; status kept on update when the kind has a status subresource. */
export function genericStrategy(resource: ResourceInfo): ResourceStrategy {
  const hasStatus = resource.subresources.some((s) => s.name === 'status');
  // RBAC names are path segments (system:node, system::leader-locking-…), as Kubernetes' ValidateRBACName.
  const rbac = resource.group === 'rbac.authorization.k8s.io';
  return buildStrategy(resource, {
    validate: rbac ? (o) => validateObjectMeta(o.metadata, { namespaced: resource.namespaced, nameFn: isValidPathSegmentName }) : validateMetaOnly(resource.namespaced),
    ...(hasStatus ? { status: { keepOnCreate: true } } : {}),
  });
}

const BUILT_IN = new Set<ResourceInfo>(RESOURCES);
registerCustomResourceValidator(schemaValidatorFactory);
registerCustomResourceValidator(celRulesValidatorFactory);
registerKindDecoder(customResourceDecoder);

export function strategyFor(resource: ResourceInfo): ResourceStrategy {
  // A custom resource's strategy follows its CRD, which may change: built afresh (callers keep one per entry).
  if (!BUILT_IN.has(resource)) return customResourceStrategy(resource);
  const k = keyOf(resource);
  let s = cache.get(k);
  if (!s) {
    s = withPrinter(byKey.get(k) ?? genericStrategy(resource));
    cache.set(k, s);
  }
  return s;
}

/** Every resource in the table has a dedicated strategy (checked by the tests). */
export function resourcesWithoutStrategy(): ResourceInfo[] {
  return RESOURCES.filter((r) => !byKey.has(keyOf(r)));
}

export type { ResourceStrategy } from './types.ts';
