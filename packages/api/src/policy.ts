// policy/v1 PodDisruptionBudget and Eviction; core/v1 ReplicationController, PodTemplate, LimitRange and
// ResourceQuota; networking.k8s.io/v1 Ingress, IngressClass, NetworkPolicy; node.k8s.io/v1 RuntimeClass.
import type { Condition, KubeObject, LabelSelector } from './meta.ts';
import type { IntOrString, PodTemplateSpec, ResourceList, Toleration } from './core.ts';

export type UnhealthyPodEvictionPolicy = 'IfHealthyBudget' | 'AlwaysAllow';

export interface PodDisruptionBudgetSpec {
  minAvailable?: IntOrString;
  maxUnavailable?: IntOrString;
  selector?: LabelSelector | null;
  unhealthyPodEvictionPolicy?: UnhealthyPodEvictionPolicy;
}

export interface PodDisruptionBudgetStatus {
  observedGeneration?: number;
  /** Pod name → RFC 3339 time the eviction was admitted. */
  disruptedPods?: Record<string, string>;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions?: Condition[];
}

export interface PodDisruptionBudget extends KubeObject {
  spec: PodDisruptionBudgetSpec;
  status?: PodDisruptionBudgetStatus;
}

export interface ReplicationControllerSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: Record<string, string>;
  template?: PodTemplateSpec;
}

export interface ReplicationController extends KubeObject {
  spec: ReplicationControllerSpec;
  status?: {
    replicas: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
    conditions?: Condition[];
  };
}

export interface PodTemplate extends KubeObject {
  template?: PodTemplateSpec;
}

export interface LimitRangeItem {
  type: 'Container' | 'Pod' | 'PersistentVolumeClaim' | string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

export interface LimitRange extends KubeObject {
  spec: { limits: LimitRangeItem[] };
}

export interface ScopedResourceSelectorRequirement {
  scopeName: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface ResourceQuota extends KubeObject {
  spec?: { hard?: ResourceList; scopes?: string[]; scopeSelector?: { matchExpressions?: ScopedResourceSelectorRequirement[] } };
  status?: { hard?: ResourceList; used?: ResourceList };
}

export interface IngressBackend {
  service?: { name: string; port?: { name?: string; number?: number } };
}

export interface Ingress extends KubeObject {
  spec?: {
    ingressClassName?: string;
    defaultBackend?: IngressBackend;
    tls?: { hosts?: string[]; secretName?: string }[];
    rules?: { host?: string; http?: { paths: { path?: string; pathType?: string; backend: IngressBackend }[] } }[];
  };
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
}

export interface IngressClass extends KubeObject {
  spec?: { controller?: string; parameters?: { apiGroup?: string; kind: string; name: string; scope?: string; namespace?: string } };
}

export interface NetworkPolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}

export interface NetworkPolicyPort {
  protocol?: string;
  port?: IntOrString;
  endPort?: number;
}

export interface NetworkPolicy extends KubeObject {
  spec?: {
    podSelector: LabelSelector;
    ingress?: { ports?: NetworkPolicyPort[]; from?: NetworkPolicyPeer[] }[];
    egress?: { ports?: NetworkPolicyPort[]; to?: NetworkPolicyPeer[] }[];
    policyTypes?: ('Ingress' | 'Egress')[];
  };
}

export interface RuntimeClass extends KubeObject {
  handler: string;
  overhead?: { podFixed?: ResourceList };
  scheduling?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
}
