// apps/v1, coordination.k8s.io/v1, discovery.k8s.io/v1, scheduling.k8s.io/v1, events.k8s.io/v1 and autoscaling/v1 Scale.
import type { Condition, KubeObject, LabelSelector } from './meta.ts';
import type { EndpointPort, IntOrString, ObjectReference, PodTemplateSpec } from './core.ts';

export interface DeploymentStrategy {
  type?: 'RollingUpdate' | 'Recreate';
  rollingUpdate?: { maxUnavailable?: IntOrString; maxSurge?: IntOrString };
}

export interface DeploymentSpec {
  replicas?: number;
  selector: LabelSelector;
  template: PodTemplateSpec;
  strategy?: DeploymentStrategy;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  terminatingReplicas?: number;
  conditions?: Condition[];
  collisionCount?: number;
}

export interface Deployment extends KubeObject {
  spec: DeploymentSpec;
  status?: DeploymentStatus;
}

export interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector: LabelSelector;
  template?: PodTemplateSpec;
}

export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  terminatingReplicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

export interface ReplicaSet extends KubeObject {
  spec: ReplicaSetSpec;
  status?: ReplicaSetStatus;
}

/** autoscaling/v1 Scale. */
export interface Scale extends KubeObject {
  spec?: { replicas?: number };
  status?: { replicas: number; selector?: string };
}

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number | null;
  strategy?: string;
  preferredHolder?: string;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

export interface EndpointConditions {
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

export interface Endpoint {
  addresses: string[];
  conditions?: EndpointConditions;
  hostname?: string;
  targetRef?: ObjectReference;
  nodeName?: string;
  zone?: string;
}

export interface EndpointSlice extends KubeObject {
  addressType: 'IPv4' | 'IPv6' | 'FQDN';
  endpoints: Endpoint[] | null;
  ports?: EndpointPort[] | null;
}

export interface PriorityClass extends KubeObject {
  value: number;
  globalDefault?: boolean;
  description?: string;
  preemptionPolicy?: 'PreemptLowerPriority' | 'Never';
}

/** events.k8s.io/v1 Event. */
export interface EventsV1Event extends KubeObject {
  eventTime: string;
  series?: { count: number; lastObservedTime: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource?: { component?: string; host?: string };
  deprecatedFirstTimestamp?: string;
  deprecatedLastTimestamp?: string;
  deprecatedCount?: number;
}
