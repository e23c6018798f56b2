// apps/v1 Deployment and ReplicaSet, plus the small kinds of other groups kemu serves that typed clients
// send: policy/v1 Eviction, autoscaling/v1 Scale, scheduling.k8s.io/v1 PriorityClass, coordination.k8s.io/v1 Lease.
import { bool, i32, i32Ptr, i64, list, message, msg, str, strPtr } from '../schema.ts';
import { DeleteOptions, IntOrString, LabelSelector, MicroTime, ObjectMeta, Time } from './meta.ts';
import { PodTemplateSpec } from './pod-spec.ts';

const metadata = msg('metadata', () => ObjectMeta);
const selector = msg('selector', () => LabelSelector);
const template = msg('template', () => PodTemplateSpec);

export const RollingUpdateDeployment = message({ 1: msg('maxUnavailable', () => IntOrString), 2: msg('maxSurge', () => IntOrString) });
export const DeploymentSpec = message({
  1: i32Ptr('replicas'),
  2: selector,
  3: template,
  4: msg('strategy', () => message({ 1: str('type'), 2: msg('rollingUpdate', () => RollingUpdateDeployment) })),
  5: i32('minReadySeconds'),
  6: i32Ptr('revisionHistoryLimit'),
  7: bool('paused'),
  9: i32Ptr('progressDeadlineSeconds'),
});
export const DeploymentCondition = message({
  1: str('type'),
  2: str('status'),
  6: msg('lastUpdateTime', () => Time),
  7: msg('lastTransitionTime', () => Time),
  4: str('reason'),
  5: str('message'),
});
export const DeploymentStatus = message({
  1: i64('observedGeneration'),
  2: i32('replicas'),
  3: i32('updatedReplicas'),
  7: i32('readyReplicas'),
  4: i32('availableReplicas'),
  5: i32('unavailableReplicas'),
  6: list('conditions', () => DeploymentCondition),
  8: i32Ptr('collisionCount'),
});
export const Deployment = message({ 1: metadata, 2: msg('spec', () => DeploymentSpec), 3: msg('status', () => DeploymentStatus) });

export const ReplicaSetCondition = message({
  1: str('type'),
  2: str('status'),
  3: msg('lastTransitionTime', () => Time),
  4: str('reason'),
  5: str('message'),
});
export const ReplicaSetStatus = message({
  1: i32('replicas'),
  2: i32('fullyLabeledReplicas'),
  4: i32('readyReplicas'),
  5: i32('availableReplicas'),
  3: i64('observedGeneration'),
  6: list('conditions', () => ReplicaSetCondition),
});
export const ReplicaSet = message({
  1: metadata,
  2: msg('spec', () => message({ 1: i32Ptr('replicas'), 4: i32('minReadySeconds'), 2: selector, 3: template })),
  3: msg('status', () => ReplicaSetStatus),
});

export const Eviction = message({ 1: metadata, 2: msg('deleteOptions', () => DeleteOptions) });

export const Scale = message({
  1: metadata,
  2: msg('spec', () => message({ 1: i32('replicas') })),
  3: msg('status', () => message({ 1: i32('replicas'), 2: str('selector') })),
});

export const PriorityClass = message({
  1: metadata,
  2: i32('value'),
  3: bool('globalDefault'),
  4: str('description'),
  5: strPtr('preemptionPolicy'),
});

export const LeaseSpec = message({
  1: strPtr('holderIdentity'),
  2: i32Ptr('leaseDurationSeconds'),
  3: msg('acquireTime', () => MicroTime),
  4: msg('renewTime', () => MicroTime),
  5: i32Ptr('leaseTransitions'),
  6: strPtr('strategy'),
  7: strPtr('preferredHolder'),
});
export const Lease = message({ 1: metadata, 2: msg('spec', () => LeaseSpec) });
