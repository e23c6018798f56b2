// PodDisruptionBudget helpers shared by the eviction subresource and the disruption controller
// (Kubernetes' pkg/apis/policy/v1 pdb helper and apimachinery's meta.SetStatusCondition).
import type { Condition } from './meta.ts';
import type { PodDisruptionBudget } from './policy.ts';

export const DISRUPTION_ALLOWED_CONDITION = 'DisruptionAllowed';
export const SUFFICIENT_PODS_REASON = 'SufficientPods';
export const INSUFFICIENT_PODS_REASON = 'InsufficientPods';
export const SYNC_FAILED_REASON = 'SyncFailed';

type MetaCondition = Condition & { observedGeneration?: number };

/** meta.SetStatusCondition: replaces the condition of that type; lastTransitionTime moves only when status does. */
export function setStatusCondition(conditions: MetaCondition[], c: MetaCondition, now: string): MetaCondition[] {
  const i = conditions.findIndex((x) => x.type === c.type);
  if (i < 0) return [...conditions, { ...c, lastTransitionTime: c.lastTransitionTime ?? now }];
  const old = conditions[i]!;
  const next: MetaCondition = { ...old, reason: c.reason ?? '', message: c.message ?? '', status: c.status };
  if (c.observedGeneration !== undefined) next.observedGeneration = c.observedGeneration;
  if (old.status !== c.status) next.lastTransitionTime = c.lastTransitionTime ?? now;
  const out = [...conditions];
  out[i] = next;
  return out;
}

/** UpdateDisruptionAllowedCondition: DisruptionAllowed True/SufficientPods while disruptions are allowed, else False/InsufficientPods. */
export function updateDisruptionAllowedCondition(pdb: PodDisruptionBudget, now: string): void {
  const st = pdb.status ?? { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  const allowed = st.disruptionsAllowed > 0;
  const cond: MetaCondition = {
    type: DISRUPTION_ALLOWED_CONDITION,
    status: allowed ? 'True' : 'False',
    reason: allowed ? SUFFICIENT_PODS_REASON : INSUFFICIENT_PODS_REASON,
    message: '',
    observedGeneration: st.observedGeneration ?? 0,
  };
  st.conditions = setStatusCondition((st.conditions ?? []) as MetaCondition[], cond, now);
  pdb.status = st;
}
