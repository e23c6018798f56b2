// HorizontalPodAutoscalers (pkg/registry/autoscaling/horizontalpodautoscaler): /status (create cannot set it), the
// defaults of the version sent; autoscaling/v1 is a view of the v2 storage (storage-views.ts).
import { R, type KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultHorizontalPodAutoscaler, defaultHorizontalPodAutoscalerV1 } from '../defaults/autoscaling.ts';
import {
  validateHorizontalPodAutoscaler,
  validateHorizontalPodAutoscalerStatusUpdate,
  validateHorizontalPodAutoscalerUpdate,
} from '../validation/autoscaling.ts';

const asFields = (o: KubeObject) => o as unknown as Record<string, unknown>;

const common = {
  validate: validateHorizontalPodAutoscaler,
  validateUpdate: validateHorizontalPodAutoscalerUpdate,
  validateStatusUpdate: validateHorizontalPodAutoscalerStatusUpdate,
};

export const horizontalPodAutoscalerStrategy = buildStrategy(R.horizontalpodautoscalers, {
  ...common,
  // Create cannot set status (PrepareForCreate); desiredReplicas is not omitempty.
  status: { initial: () => ({ desiredReplicas: 0 }) },
  defaults: (o) => defaultHorizontalPodAutoscaler(asFields(o)),
});

export const horizontalPodAutoscalerV1Strategy = buildStrategy(R.horizontalpodautoscalersV1, {
  ...common,
  status: { initial: () => ({ currentReplicas: 0, desiredReplicas: 0 }) },
  defaults: (o) => defaultHorizontalPodAutoscalerV1(asFields(o)),
});
