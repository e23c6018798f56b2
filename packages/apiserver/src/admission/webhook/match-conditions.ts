// The hook through which a CEL evaluator decides a webhook's matchConditions: kemu's CEL by default. Unset, every
// evaluation is an error, which Kubernetes treats by the webhook's failurePolicy: Fail rejects the request (403),
// Ignore skips it.
import type { AdmissionAttributes } from '../types.ts';
import { celMatchConditions } from './cel-match-conditions.ts';

export interface MatchConditionSpec {
  name: string;
  expression: string;
}

/** true: all conditions hold (call the webhook); false: one is false (skip it); throws: an evaluation error. */
export type MatchConditionEvaluator = (conditions: readonly MatchConditionSpec[], attrs: AdmissionAttributes) => boolean | Promise<boolean>;

let evaluator: MatchConditionEvaluator | undefined = celMatchConditions;

export function setMatchConditionEvaluator(fn: MatchConditionEvaluator | undefined): void {
  evaluator = fn;
}

export type MatchConditionResult = { matches: boolean } | { error: string };

export async function evaluateMatchConditions(conditions: readonly MatchConditionSpec[], attrs: AdmissionAttributes): Promise<MatchConditionResult> {
  if (conditions.length === 0) return { matches: true };
  if (!evaluator) return { error: 'matchConditions cannot be evaluated: no CEL evaluator is available' };
  try {
    return { matches: await evaluator(conditions, attrs) };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}
