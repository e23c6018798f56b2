// autoscaling/v2 HorizontalPodAutoscaler (the stored form), as the controller reads it (Scale is in apps.ts).
import type { Condition, KubeObject, LabelSelector } from './meta.ts';

export interface CrossVersionObjectReference {
  apiVersion?: string;
  kind: string;
  name: string;
}

export interface MetricTarget {
  type: 'Utilization' | 'Value' | 'AverageValue';
  value?: string;
  averageValue?: string;
  averageUtilization?: number;
}

export interface MetricValueStatus {
  value?: string;
  averageValue?: string;
  averageUtilization?: number;
}

export interface MetricIdentifier {
  name: string;
  selector?: LabelSelector;
}

export interface MetricSpec {
  type: 'ContainerResource' | 'External' | 'Object' | 'Pods' | 'Resource';
  resource?: { name: string; target: MetricTarget };
  containerResource?: { name: string; container: string; target: MetricTarget };
  pods?: { metric: MetricIdentifier; target: MetricTarget };
  object?: { describedObject: CrossVersionObjectReference; metric: MetricIdentifier; target: MetricTarget };
  external?: { metric: MetricIdentifier; target: MetricTarget };
}

export interface MetricStatus {
  type: MetricSpec['type'];
  resource?: { name: string; current: MetricValueStatus };
  containerResource?: { name: string; container: string; current: MetricValueStatus };
  pods?: { metric: MetricIdentifier; current: MetricValueStatus };
  object?: { describedObject: CrossVersionObjectReference; metric: MetricIdentifier; current: MetricValueStatus };
  external?: { metric: MetricIdentifier; current: MetricValueStatus };
}

export interface HPAScalingPolicy {
  type: 'Pods' | 'Percent';
  value: number;
  periodSeconds: number;
}

export interface HPAScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: 'Max' | 'Min' | 'Disabled';
  policies?: HPAScalingPolicy[];
}

export interface HorizontalPodAutoscalerBehavior {
  scaleUp?: HPAScalingRules;
  scaleDown?: HPAScalingRules;
}

export interface HorizontalPodAutoscaler extends KubeObject {
  spec: {
    scaleTargetRef: CrossVersionObjectReference;
    minReplicas?: number;
    maxReplicas: number;
    metrics?: MetricSpec[];
    behavior?: HorizontalPodAutoscalerBehavior;
  };
  status?: {
    observedGeneration?: number;
    lastScaleTime?: string;
    currentReplicas?: number;
    desiredReplicas: number;
    currentMetrics?: MetricStatus[];
    conditions?: Condition[];
  };
}
