// apps/v1 Deployment and ReplicaSet, plus the small kinds of other groups kemu serves that typed clients
// send: policy/v1 Eviction, autoscaling/v1 Scale, scheduling.k8s.io/v1 PriorityClass, coordination.k8s.io/v1 Lease.
import { bool, i32, i32Ptr, i64, list, msg, str, strPtr, struct } from '../build.ts';
import { DeleteOptions, IntOrString, LabelSelector, MicroTime, ObjectMeta, Time } from './meta.ts';
import { PodTemplateSpec } from './pod-spec.ts';

const metadata = msg('metadata', () => ObjectMeta);
const selector = msg('selector', () => LabelSelector);
const template = msg('template', () => PodTemplateSpec);

export const RollingUpdateDeployment = struct('io.k8s.api.apps.v1.RollingUpdateDeployment', '', { 1: msg('maxUnavailable', () => IntOrString), 2: msg('maxSurge', () => IntOrString) });
export const DeploymentSpec = struct('io.k8s.api.apps.v1.DeploymentSpec', '', {
  1: i32Ptr('replicas'),
  2: selector,
  3: template,
  4: msg('strategy', () => struct('', '', { 1: str('type'), 2: msg('rollingUpdate', () => RollingUpdateDeployment) })),
  5: i32('minReadySeconds'),
  6: i32Ptr('revisionHistoryLimit'),
  7: bool('paused'),
  9: i32Ptr('progressDeadlineSeconds'),
});
export const DeploymentCondition = struct('io.k8s.api.apps.v1.DeploymentCondition', '', {
  1: str('type'),
  2: str('status'),
  6: msg('lastUpdateTime', () => Time),
  7: msg('lastTransitionTime', () => Time),
  4: str('reason'),
  5: str('message'),
});
export const DeploymentStatus = struct('io.k8s.api.apps.v1.DeploymentStatus', '', {
  1: i64('observedGeneration'),
  2: i32('replicas'),
  3: i32('updatedReplicas'),
  7: i32('readyReplicas'),
  4: i32('availableReplicas'),
  5: i32('unavailableReplicas'),
  6: list('conditions', () => DeploymentCondition),
  8: i32Ptr('collisionCount'),
});
export const Deployment = struct('io.k8s.api.apps.v1.Deployment', '', { 1: metadata, 2: msg('spec', () => DeploymentSpec), 3: msg('status', () => DeploymentStatus) });

export const ReplicaSetCondition = struct('io.k8s.api.apps.v1.ReplicaSetCondition', '', {
  1: str('type'),
  2: str('status'),
  3: msg('lastTransitionTime', () => Time),
  4: str('reason'),
  5: str('message'),
});
export const ReplicaSetStatus = struct('io.k8s.api.apps.v1.ReplicaSetStatus', '', {
  1: i32('replicas'),
  2: i32('fullyLabeledReplicas'),
  4: i32('readyReplicas'),
  5: i32('availableReplicas'),
  3: i64('observedGeneration'),
  6: list('conditions', () => ReplicaSetCondition),
});
export const ReplicaSet = struct('io.k8s.api.apps.v1.ReplicaSet', '', {
  1: metadata,
  2: msg('spec', () => struct('', '', { 1: i32Ptr('replicas'), 4: i32('minReadySeconds'), 2: selector, 3: template })),
  3: msg('status', () => ReplicaSetStatus),
});

export const Eviction = struct('', '', { 1: metadata, 2: msg('deleteOptions', () => DeleteOptions) });

export const Scale = struct('', '', {
  1: metadata,
  2: msg('spec', () => struct('', '', { 1: i32('replicas') })),
  3: msg('status', () => struct('', '', { 1: i32('replicas'), 2: str('selector') })),
});

export const PriorityClass = struct('io.k8s.api.scheduling.v1.PriorityClass', '', {
  1: metadata,
  2: i32('value'),
  3: bool('globalDefault'),
  4: str('description'),
  5: strPtr('preemptionPolicy'),
});

export const LeaseSpec = struct('io.k8s.api.coordination.v1.LeaseSpec', '', {
  1: strPtr('holderIdentity'),
  2: i32Ptr('leaseDurationSeconds'),
  3: msg('acquireTime', () => MicroTime),
  4: msg('renewTime', () => MicroTime),
  5: i32Ptr('leaseTransitions'),
  6: strPtr('strategy'),
  7: strPtr('preferredHolder'),
});
export const Lease = struct('io.k8s.api.coordination.v1.Lease', '', { 1: metadata, 2: msg('spec', () => LeaseSpec) });
