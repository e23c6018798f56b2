// Strategies of the policy, quota, networking and runtime kinds: poddisruptionbudgets
// (pkg/registry/policy/poddisruptionbudget: generation, /status), replicationcontrollers (as replicasets),
// podtemplates, limitranges, resourcequotas (/status), ingresses (/status), ingressclasses, networkpolicies
// (generation), runtimeclasses.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import {
  validateLimitRange,
  validateLimitRangeUpdate,
  validatePodDisruptionBudget,
  validatePodDisruptionBudgetStatus,
  validatePodDisruptionBudgetUpdate,
  validatePodTemplate,
  validatePodTemplateUpdate,
  validateReplicationController,
  validateReplicationControllerUpdate,
  validateResourceQuota,
  validateResourceQuotaStatus,
  validateResourceQuotaUpdate,
} from '../validation/policy.ts';
import {
  validateIngress,
  validateIngressClass,
  validateIngressClassUpdate,
  validateIngressUpdate,
  validateNetworkPolicy,
  validateNetworkPolicyUpdate,
  validateRuntimeClass,
  validateRuntimeClassUpdate,
} from '../validation/networking.ts';
import { validateReplicaStatus } from '../validation/apps.ts';
import { validateObjectMetaUpdate } from '../validation/meta.ts';
import {
  defaultIngressClass,
  defaultLimitRange,
  defaultNetworkPolicy,
  defaultPodTemplateObject,
  defaultReplicationController,
} from '../defaults/policy.ts';

const ns = { namespaced: true };

export const podDisruptionBudgetStrategy = buildStrategy(R.poddisruptionbudgets, {
  validate: validatePodDisruptionBudget,
  validateUpdate: validatePodDisruptionBudgetUpdate,
  validateStatusUpdate: (o, old) => [...validateObjectMetaUpdate(o.metadata, old.metadata, ns), ...validatePodDisruptionBudgetStatus(o)],
  status: { initial: () => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }) },
  generation: true,
});

export const replicationControllerStrategy = buildStrategy(R.replicationcontrollers, {
  defaults: (rc) => defaultReplicationController(rc),
  validate: validateReplicationController,
  validateUpdate: validateReplicationControllerUpdate,
  validateStatusUpdate: (o, old) => [...validateObjectMetaUpdate(o.metadata, old.metadata, ns), ...validateReplicaStatus(o)],
  status: { initial: () => ({ replicas: 0 }) },
  generation: true,
  statusKeepsMeta: ['labels'],
});

export const podTemplateStrategy = buildStrategy(R.podtemplates, {
  defaults: (pt) => defaultPodTemplateObject(pt),
  validate: validatePodTemplate,
  validateUpdate: validatePodTemplateUpdate,
});

export const limitRangeStrategy = buildStrategy(R.limitranges, {
  defaults: (lr) => defaultLimitRange(lr),
  validate: validateLimitRange,
  validateUpdate: validateLimitRangeUpdate,
});

export const resourceQuotaStrategy = buildStrategy(R.resourcequotas, {
  validate: validateResourceQuota,
  validateUpdate: validateResourceQuotaUpdate,
  validateStatusUpdate: (o, old) => [...validateObjectMetaUpdate(o.metadata, old.metadata, ns), ...validateResourceQuotaStatus(o)],
  status: {},
});

export const ingressStrategy = buildStrategy(R.ingresses, {
  validate: validateIngress,
  validateUpdate: validateIngressUpdate,
  validateStatusUpdate: (o, old) => validateObjectMetaUpdate(o.metadata, old.metadata, ns),
  status: {},
  generation: true,
});

export const ingressClassStrategy = buildStrategy(R.ingressclasses, {
  defaults: (ic) => defaultIngressClass(ic),
  validate: validateIngressClass,
  validateUpdate: validateIngressClassUpdate,
  generation: true,
});

export const networkPolicyStrategy = buildStrategy(R.networkpolicies, {
  defaults: (np) => defaultNetworkPolicy(np),
  validate: validateNetworkPolicy,
  validateUpdate: validateNetworkPolicyUpdate,
  generation: true,
});

export const runtimeClassStrategy = buildStrategy(R.runtimeclasses, {
  validate: validateRuntimeClass,
  validateUpdate: validateRuntimeClassUpdate,
});

export const POLICY_STRATEGIES = [
  podDisruptionBudgetStrategy,
  replicationControllerStrategy,
  podTemplateStrategy,
  limitRangeStrategy,
  resourceQuotaStrategy,
  ingressStrategy,
  ingressClassStrategy,
  networkPolicyStrategy,
  runtimeClassStrategy,
];
