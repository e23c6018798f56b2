// From the metrics' proposal to the replica count written (pkg/controller/podautoscaler/horizontal.go):
// stabilization over past recommendations, then min/max and rate limits. Without spec.behavior, Kubernetes'
// older rules apply: the highest recommendation of the downscale stabilization window
// (--horizontal-pod-autoscaler-downscale-stabilization) and a scale up of at most max(2×current, 4). With a
// behavior: the scale-up and scale-down windows and the policies (Pods / Percent per period, Max / Min /
// Disabled) against the scale events of the policies' periods. The outcome names the AbleToScale and
// ScalingLimited conditions with Kubernetes' reasons and messages. State (recommendations, scale events) is
// per autoscaler key and in memory, as in Kubernetes; time is passed in.
import type { HPAScalingRules, HorizontalPodAutoscalerBehavior } from '@kemu/api';

export interface ConditionText {
  reason: string;
  message: string;
}

export interface Normalized {
  replicas: number;
  /** AbleToScale True with this reason (ReadyForNewScale, ScaleUpStabilized, ScaleDownStabilized). */
  ableToScale: ConditionText;
  /** ScalingLimited: True when the limits changed the stabilized recommendation. */
  limited: ConditionText & { status: 'True' | 'False' };
}

interface Recommendation {
  replicas: number;
  at: number;
}

interface ScaleEvent {
  change: number;
  at: number;
  outdated: boolean;
}

const SCALE_UP_LIMIT_FACTOR = 2.0;
const SCALE_UP_LIMIT_MINIMUM = 4.0;
const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

const READY: ConditionText = { reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
const WITHIN_RANGE: ConditionText = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
const SCALE_UP_LIMIT: ConditionText = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
const SCALE_DOWN_LIMIT: ConditionText = { reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' };
const TOO_MANY: ConditionText = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
const TOO_FEW: ConditionText = { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
const UP_STABILIZED: ConditionText = { reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' };
const DOWN_STABILIZED: ConditionText = { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };

/** calculateScaleUpLimit: never more than double, or 4, at once (without a behavior). */
export function scaleUpLimit(currentReplicas: number): number {
  return Math.max(SCALE_UP_LIMIT_FACTOR * currentReplicas, SCALE_UP_LIMIT_MINIMUM);
}

/** convertDesiredReplicasWithRules: clamps to [min, min(max, scale-up limit)] and names what limited it. */
export function convertWithRules(current: number, desired: number, min: number, max: number): { replicas: number } & ConditionText {
  const upLimit = scaleUpLimit(current);
  const [maxAllowed, limiting] = max > upLimit ? [upLimit, SCALE_UP_LIMIT] : [max, TOO_MANY];
  if (desired < min) return { replicas: min, ...TOO_FEW };
  if (desired > maxAllowed) return { replicas: maxAllowed, ...limiting };
  return { replicas: desired, ...WITHIN_RANGE };
}

/** getReplicasChangePerPeriod: the replicas added (or removed) by the events within the last period. */
export function changeInPeriod(periodSeconds: number, events: readonly ScaleEvent[], now: number): number {
  const cutoff = now - periodSeconds * 1000;
  return events.filter((e) => e.at > cutoff).reduce((s, e) => s + e.change, 0);
}

/** calculateScaleUpLimitWithScalingRules: the most (Max) or least (Min) any policy allows from its period's start. */
export function scaleUpLimitWithRules(current: number, ups: readonly ScaleEvent[], downs: readonly ScaleEvent[], rules: HPAScalingRules, now: number): number {
  const select = rules.selectPolicy ?? 'Max';
  if (select === 'Disabled') return current;
  let result = select === 'Min' ? INT32_MAX : INT32_MIN;
  for (const p of rules.policies ?? []) {
    const start = current - changeInPeriod(p.periodSeconds, ups, now) + changeInPeriod(p.periodSeconds, downs, now);
    // Rounded up: a Percent policy must always allow at least one more pod.
    const proposed = p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
    result = select === 'Min' ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}

/** calculateScaleDownLimitWithBehaviors: the fewest (Max) or most (Min) replicas any policy allows. */
export function scaleDownLimitWithRules(current: number, ups: readonly ScaleEvent[], downs: readonly ScaleEvent[], rules: HPAScalingRules, now: number): number {
  const select = rules.selectPolicy ?? 'Max';
  if (select === 'Disabled') return current;
  let result = select === 'Min' ? INT32_MIN : INT32_MAX;
  for (const p of rules.policies ?? []) {
    const start = current - changeInPeriod(p.periodSeconds, ups, now) + changeInPeriod(p.periodSeconds, downs, now);
    const proposed = p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
    result = select === 'Min' ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return result;
}

function longestPeriod(rules: HPAScalingRules | undefined): number {
  return Math.max(0, ...(rules?.policies ?? []).map((p) => p.periodSeconds));
}

export interface NormalizeArgs {
  key: string;
  current: number;
  desired: number;
  min: number;
  max: number;
  /** undefined: Kubernetes' rules for autoscalers without spec.behavior. */
  behavior: HorizontalPodAutoscalerBehavior | undefined;
  now: number;
}

/** One controller's memory of recommendations and scale events, by autoscaler key. */
export class Normalizer {
  private readonly recommendations = new Map<string, Recommendation[]>();
  private readonly scaleUpEvents = new Map<string, ScaleEvent[]>();
  private readonly scaleDownEvents = new Map<string, ScaleEvent[]>();

  /** @param downscaleStabilizationMs --horizontal-pod-autoscaler-downscale-stabilization */
  constructor(private readonly downscaleStabilizationMs: number) {}

  /** recordInitialRecommendation: the first sync remembers the current count as a recommendation. */
  recordInitial(key: string, current: number, now: number): void {
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ replicas: current, at: now }]);
  }

  forget(key: string): void {
    this.recommendations.delete(key);
    this.scaleUpEvents.delete(key);
    this.scaleDownEvents.delete(key);
  }

  normalize(a: NormalizeArgs): Normalized {
    return a.behavior ? this.withBehavior(a, a.behavior) : this.withoutBehavior(a);
  }

  /** normalizeDesiredReplicas. */
  private withoutBehavior(a: NormalizeArgs): Normalized {
    const stabilized = this.stabilize(a.key, a.desired, a.now);
    const ableToScale = stabilized !== a.desired ? DOWN_STABILIZED : READY;
    const r = convertWithRules(a.current, stabilized, a.min, a.max);
    return { replicas: r.replicas, ableToScale, limited: { status: r.replicas === stabilized ? 'False' : 'True', reason: r.reason, message: r.message } };
  }

  /** stabilizeRecommendation: the highest recommendation within the downscale window; the oldest stale one is replaced. */
  private stabilize(key: string, desired: number, now: number): number {
    const recs = this.recommendations.get(key) ?? [];
    const cutoff = now - this.downscaleStabilizationMs;
    let max = desired;
    let old = -1;
    recs.forEach((r, i) => {
      if (r.at < cutoff) old = i;
      else if (r.replicas > max) max = r.replicas;
    });
    if (old >= 0) recs[old] = { replicas: desired, at: now };
    else recs.push({ replicas: desired, at: now });
    this.recommendations.set(key, recs);
    return max;
  }

  /** normalizeDesiredReplicasWithBehaviors. */
  private withBehavior(a: NormalizeArgs, behavior: HorizontalPodAutoscalerBehavior): Normalized {
    const up = behavior.scaleUp ?? {};
    // maybeInitScaleDownStabilizationWindow: an unset scale-down window is the controller's flag.
    const down = { ...(behavior.scaleDown ?? {}) };
    if (down.stabilizationWindowSeconds === undefined) down.stabilizationWindowSeconds = Math.trunc(this.downscaleStabilizationMs / 1000);
    const s = this.stabilizeWithBehavior(a, up, down);
    const ableToScale = s.replicas !== a.desired ? s.text : READY;
    const r = this.convertWithBehaviorRate({ ...a, desired: s.replicas }, up, down);
    return { replicas: r.replicas, ableToScale, limited: { status: r.replicas === s.replicas ? 'False' : 'True', reason: r.reason, message: r.message } };
  }

  /** stabilizeRecommendationWithBehaviors: between the lowest recommendation of the up window and the highest of the down window. */
  private stabilizeWithBehavior(a: NormalizeArgs, up: HPAScalingRules, down: HPAScalingRules): { replicas: number; text: ConditionText } {
    const upCutoff = a.now - (up.stabilizationWindowSeconds ?? 0) * 1000;
    const downCutoff = a.now - (down.stabilizationWindowSeconds ?? 0) * 1000;
    let upRec = a.desired;
    let downRec = a.desired;
    let old = -1;
    const recs = this.recommendations.get(a.key) ?? [];
    recs.forEach((r, i) => {
      if (r.at > upCutoff) upRec = Math.min(r.replicas, upRec);
      if (r.at > downCutoff) downRec = Math.max(r.replicas, downRec);
      if (r.at < upCutoff && r.at < downCutoff) old = i;
    });
    let rec = a.current;
    if (rec < upRec) rec = upRec;
    if (rec > downRec) rec = downRec;
    if (old >= 0) recs[old] = { replicas: a.desired, at: a.now };
    else recs.push({ replicas: a.desired, at: a.now });
    this.recommendations.set(a.key, recs);
    return { replicas: rec, text: a.desired >= a.current ? UP_STABILIZED : DOWN_STABILIZED };
  }

  /** convertDesiredReplicasWithBehaviorRate. */
  private convertWithBehaviorRate(a: NormalizeArgs, up: HPAScalingRules, down: HPAScalingRules): { replicas: number } & ConditionText {
    const ups = this.scaleUpEvents.get(a.key) ?? [];
    const downs = this.scaleDownEvents.get(a.key) ?? [];
    if (a.desired > a.current) {
      // Never below the current count: further scale up waits for the events to age out.
      const limit = Math.max(scaleUpLimitWithRules(a.current, ups, downs, up, a.now), a.current);
      const [maxAllowed, limiting] = a.max > limit ? [limit, SCALE_UP_LIMIT] : [a.max, TOO_MANY];
      if (a.desired > maxAllowed) return { replicas: maxAllowed, ...limiting };
    } else if (a.desired < a.current) {
      const limit = Math.min(scaleDownLimitWithRules(a.current, ups, downs, down, a.now), a.current);
      const [minAllowed, limiting] = a.min < limit ? [limit, SCALE_DOWN_LIMIT] : [a.min, TOO_FEW];
      if (a.desired < minAllowed) return { replicas: minAllowed, ...limiting };
    }
    return { replicas: a.desired, ...WITHIN_RANGE };
  }

  /** storeScaleEvent: remembered for the rate policies (only with a behavior, as Kubernetes). */
  recordScale(key: string, behavior: HorizontalPodAutoscalerBehavior | undefined, prev: number, next: number, now: number): void {
    if (!behavior) return;
    const upward = next > prev;
    const map = upward ? this.scaleUpEvents : this.scaleDownEvents;
    const events = map.get(key) ?? [];
    const cutoff = now - longestPeriod(upward ? behavior.scaleUp : behavior.scaleDown) * 1000;
    for (const e of events) if (e.at < cutoff) e.outdated = true;
    const event = { change: Math.abs(next - prev), at: now, outdated: false };
    const i = events.findIndex((e) => e.outdated);
    if (i >= 0) events[i] = event;
    else events.push(event);
    map.set(key, events);
  }
}
