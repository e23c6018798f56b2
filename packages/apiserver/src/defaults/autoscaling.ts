// Defaulting for HorizontalPodAutoscalers (pkg/apis/autoscaling/v2/defaults.go and v1/defaults.go).
import { ensureObj, isObj } from './util.ts';
import type { Obj } from './util.ts';
import { HPA_ANNOTATIONS } from '../conversion/hpa.ts';

/** The CPU target an autoscaler without metrics gets (DefaultCPUUtilization). */
export const DEFAULT_CPU_UTILIZATION = 80;

/** GenerateHPAScaleUpRules: no stabilization, at most 4 pods or double per 15 s, whichever is more. */
export function scaleUpRules(rules: Obj | undefined): Obj {
  const r = rules ?? {};
  return {
    ...r,
    selectPolicy: r.selectPolicy ?? 'Max',
    policies: r.policies ?? [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
    stabilizationWindowSeconds: r.stabilizationWindowSeconds ?? 0,
  };
}

/** GenerateHPAScaleDownRules: any amount per 15 s; the window is left to the controller's flag when unset. */
export function scaleDownRules(rules: Obj | undefined): Obj {
  const r = rules ?? {};
  const out: Obj = { ...r, selectPolicy: r.selectPolicy ?? 'Max', policies: r.policies ?? [{ type: 'Percent', value: 100, periodSeconds: 15 }] };
  return out;
}

/** SetDefaults_HorizontalPodAutoscaler (v2): minReplicas 1, 80% CPU when no metric, a given behavior completed. */
export function defaultHorizontalPodAutoscaler(hpa: Obj): void {
  const spec = ensureObj(hpa, 'spec');
  if (spec.minReplicas === undefined || spec.minReplicas === null) spec.minReplicas = 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0)
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  // Only a behavior the user set is filled in (SetDefaults_HorizontalPodAutoscalerBehavior).
  if (isObj(spec.behavior)) {
    spec.behavior.scaleUp = scaleUpRules(isObj(spec.behavior.scaleUp) ? spec.behavior.scaleUp : undefined);
    spec.behavior.scaleDown = scaleDownRules(isObj(spec.behavior.scaleDown) ? spec.behavior.scaleDown : undefined);
  }
}

/** v1: minReplicas 1; the 80% CPU default applies when neither the field nor the metrics annotation says otherwise. */
export function defaultHorizontalPodAutoscalerV1(hpa: Obj): void {
  const spec = ensureObj(hpa, 'spec');
  if (spec.minReplicas === undefined || spec.minReplicas === null) spec.minReplicas = 1;
  const meta = isObj(hpa.metadata) ? hpa.metadata : {};
  const annotations = isObj(meta.annotations) ? meta.annotations : {};
  if ((spec.targetCPUUtilizationPercentage === undefined || spec.targetCPUUtilizationPercentage === null) && annotations[HPA_ANNOTATIONS.metrics] === undefined)
    spec.targetCPUUtilizationPercentage = DEFAULT_CPU_UTILIZATION;
}
