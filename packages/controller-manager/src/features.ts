// The feature gates kube-controller-manager's controllers consult, with Kubernetes 1.32's defaults.
import { FeatureGates } from '@kemu/base';
import type { ControllerManagerOptions } from './options.ts';

export const CONTROLLER_MANAGER_GATES = {
  // alpha since 1.24: a StatefulSet's rollingUpdate.maxUnavailable is honoured only with it on.
  MaxUnavailableStatefulSet: false,
} as const;

export type ControllerManagerGate = keyof typeof CONTROLLER_MANAGER_GATES;

export function featureGates(o: Pick<ControllerManagerOptions, 'feature-gates'>): FeatureGates<ControllerManagerGate> {
  return new FeatureGates(CONTROLLER_MANAGER_GATES, o['feature-gates']);
}
