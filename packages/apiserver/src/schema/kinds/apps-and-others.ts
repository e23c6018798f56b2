// apps/v1 Deployment and ReplicaSet, plus the small kinds of other groups kemu serves that typed clients
// send: policy/v1 Eviction, autoscaling/v1 Scale, scheduling.k8s.io/v1 PriorityClass, coordination.k8s.io/v1 Lease.
// Numbers and tags from k8s.io/api 1.32 (<group>/v1 generated.proto and types.go).
import { bool, byKey, i32, i32Ptr, i64, list, msg, str, strPtr, struct } from '../build.ts';
import { DeleteOptions, IntOrString, LabelSelector, MicroTime, ObjectMeta, Time } from './meta.ts';
import { PodTemplateSpec } from './pod-spec.ts';

const APPS = 'io.k8s.api.apps.v1.';

const metadata = msg('metadata', () => ObjectMeta, 'Standard object metadata: name, labels, annotations, owners and more.');

export const RollingUpdateDeployment = struct(`${APPS}RollingUpdateDeployment`, 'How fast a rolling update replaces old pods with new ones.', {
  1: msg('maxUnavailable', () => IntOrString, 'Pods that may be unavailable during the update, a number or a percentage; default 25%.'),
  2: msg('maxSurge', () => IntOrString, 'Pods that may be created above the desired count during the update, a number or a percentage; default 25%.'),
});

export const DeploymentStrategy = struct(`${APPS}DeploymentStrategy`, 'How a Deployment replaces its pods when the template changes.', {
  1: str('type', 'Recreate (delete all old pods first) or RollingUpdate (replace them gradually); default RollingUpdate.'),
  2: msg('rollingUpdate', () => RollingUpdateDeployment, 'Tuning for type RollingUpdate; only allowed with that type.'),
});

export const DeploymentSpec = struct(`${APPS}DeploymentSpec`, 'The desired state of a Deployment: how many pods, from which template, rolled out how.', {
  1: i32Ptr('replicas', 'Number of pods wanted; default 1.'),
  2: msg('selector', () => LabelSelector, "Selects the pods this Deployment manages; must match the template's labels and cannot change."),
  3: msg('template', () => PodTemplateSpec, 'The pod to run; changing it starts a rollout.'),
  4: msg('strategy', () => DeploymentStrategy, 'How to replace old pods with new ones.', { patch: { strategy: 'retainKeys' } }),
  5: i32('minReadySeconds', 'Seconds a new pod must be ready, without crashing, to count as available; default 0.'),
  6: i32Ptr('revisionHistoryLimit', 'Old ReplicaSets kept for rollback; default 10.'),
  7: bool('paused', 'True stops rollouts: template changes are not acted on until unpaused.'),
  9: i32Ptr('progressDeadlineSeconds', 'Seconds a rollout may make no progress before it is reported as failed; default 600.'),
});

export const DeploymentCondition = struct(`${APPS}DeploymentCondition`, 'One aspect of a Deployment\'s state at one time.', {
  1: str('type', 'Available, Progressing or ReplicaFailure.'),
  2: str('status', 'True, False or Unknown.'),
  6: msg('lastUpdateTime', () => Time, 'When the condition was last updated.'),
  7: msg('lastTransitionTime', () => Time, 'When the status last changed.'),
  4: str('reason', 'One-word CamelCase reason for the last change.'),
  5: str('message', 'Human-readable details of the last change.'),
});

export const DeploymentStatus = struct(`${APPS}DeploymentStatus`, 'What the deployment controller last observed of a Deployment.', {
  1: i64('observedGeneration', 'The generation the controller last acted on.'),
  2: i32('replicas', 'Pods (old and new) that this Deployment targets.'),
  3: i32('updatedReplicas', 'Pods created from the current template.'),
  7: i32('readyReplicas', 'Pods whose Ready condition is true.'),
  4: i32('availableReplicas', 'Pods ready for at least minReadySeconds.'),
  5: i32('unavailableReplicas', 'Pods still needed for the Deployment to be fully available.'),
  6: list('conditions', () => DeploymentCondition, 'Latest observations of the rollout, one per type.', byKey('type')),
  8: i32Ptr('collisionCount', 'Counts template hash collisions; mixed into the next ReplicaSet name to avoid them.'),
});

export const Deployment = struct(`${APPS}Deployment`, 'Runs a set of identical pods through ReplicaSets and rolls out changes to their template.', {
  1: metadata,
  2: msg('spec', () => DeploymentSpec, 'The desired state.'),
  3: msg('status', () => DeploymentStatus, 'The observed state, written by the deployment controller.'),
});

export const ReplicaSetCondition = struct(`${APPS}ReplicaSetCondition`, 'One aspect of a ReplicaSet\'s state at one time.', {
  1: str('type', 'ReplicaFailure: pods could not be created or deleted.'),
  2: str('status', 'True, False or Unknown.'),
  3: msg('lastTransitionTime', () => Time, 'When the status last changed.'),
  4: str('reason', 'One-word CamelCase reason for the last change.'),
  5: str('message', 'Human-readable details of the last change.'),
});

export const ReplicaSetStatus = struct(`${APPS}ReplicaSetStatus`, 'What the replicaset controller last observed of a ReplicaSet.', {
  1: i32('replicas', 'Pods currently matched by the selector and owned by this ReplicaSet.'),
  2: i32('fullyLabeledReplicas', "Pods whose labels match the template's labels."),
  4: i32('readyReplicas', 'Pods whose Ready condition is true.'),
  5: i32('availableReplicas', 'Pods ready for at least minReadySeconds.'),
  3: i64('observedGeneration', 'The generation the controller last acted on.'),
  6: list('conditions', () => ReplicaSetCondition, 'Latest observations of the ReplicaSet, one per type.', byKey('type')),
});

export const ReplicaSetSpec = struct(`${APPS}ReplicaSetSpec`, 'The desired state of a ReplicaSet: how many pods, and from which template.', {
  1: i32Ptr('replicas', 'Number of pods wanted; default 1.'),
  4: i32('minReadySeconds', 'Seconds a new pod must be ready, without crashing, to count as available; default 0.'),
  2: msg('selector', () => LabelSelector, "Selects the pods this ReplicaSet counts; must match the template's labels."),
  3: msg('template', () => PodTemplateSpec, 'The pod created when too few pods match the selector.'),
});

export const ReplicaSet = struct(`${APPS}ReplicaSet`, 'Keeps a given number of identical pods running; usually managed by a Deployment.', {
  1: metadata,
  2: msg('spec', () => ReplicaSetSpec, 'The desired state.'),
  3: msg('status', () => ReplicaSetStatus, 'The observed state, written by the replicaset controller.'),
});

export const Eviction = struct('io.k8s.api.policy.v1.Eviction', "Asks to delete a pod while respecting its PodDisruptionBudgets (POST to the pod's eviction subresource).", {
  1: msg('metadata', () => ObjectMeta, 'Names the pod to evict (name and namespace).'),
  2: msg('deleteOptions', () => DeleteOptions, 'Options for deleting the pod, such as its grace period.'),
});

export const ScaleSpec = struct('io.k8s.api.autoscaling.v1.ScaleSpec', 'The desired size of a scalable resource.', {
  1: i32('replicas', 'Number of replicas wanted.'),
});

export const ScaleStatus = struct('io.k8s.api.autoscaling.v1.ScaleStatus', 'The current size of a scalable resource.', {
  1: i32('replicas', 'Number of replicas observed.'),
  2: str('selector', 'The label selector of its pods, as a string (app=web); used by autoscalers to find them.'),
});

export const Scale = struct('io.k8s.api.autoscaling.v1.Scale', 'The replica count of a resource, read and written through its scale subresource.', {
  1: metadata,
  2: msg('spec', () => ScaleSpec, 'The desired size.'),
  3: msg('status', () => ScaleStatus, 'The current size; read only.'),
});

export const PriorityClass = struct('io.k8s.api.scheduling.v1.PriorityClass', 'Names a pod priority value; pods refer to it by priorityClassName.', {
  1: metadata,
  2: i32('value', 'The priority of pods using this class; higher is scheduled first and may preempt lower.'),
  3: bool('globalDefault', 'True makes this the class of pods that name none; at most one class may set it.'),
  4: str('description', 'Free text saying when to use this class.'),
  5: strPtr('preemptionPolicy', 'PreemptLowerPriority or Never: whether these pods may evict lower-priority ones; default PreemptLowerPriority.'),
});

export const LeaseSpec = struct('io.k8s.api.coordination.v1.LeaseSpec', 'Who holds a Lease and until when.', {
  1: strPtr('holderIdentity', 'Identity of the current holder.'),
  2: i32Ptr('leaseDurationSeconds', 'Seconds candidates wait after renewTime before taking the lease over.'),
  3: msg('acquireTime', () => MicroTime, 'When the current holder acquired the lease.'),
  4: msg('renewTime', () => MicroTime, 'When the holder last renewed the lease.'),
  5: i32Ptr('leaseTransitions', 'Times the lease has changed holders.'),
  6: strPtr('strategy', 'How coordinated leader election picks a holder: OldestEmulationVersion.'),
  7: strPtr('preferredHolder', 'Holder coordinated leader election wants next; the current holder should step down.'),
});

export const Lease = struct('io.k8s.api.coordination.v1.Lease', 'A lock held by one component at a time, used for leader election and node heartbeats.', {
  1: metadata,
  2: msg('spec', () => LeaseSpec, 'The holder and timing of the lease.'),
});
