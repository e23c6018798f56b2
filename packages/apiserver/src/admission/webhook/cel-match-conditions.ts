// Webhook matchConditions evaluated with kemu's CEL, as Kubernetes' webhook dispatcher does: the variables are
// object, oldObject, request and authorizer (no params, no variables); any false condition skips the webhook,
// otherwise the first error is the result (the webhook's failurePolicy then decides).
import type { Program } from '../../cel/index.ts';
import { compileMatchCondition } from '../policy/environment.ts';
import { requestOf } from '../validating-admission-policy.ts';
import type { AdmissionAttributes } from '../types.ts';
import type { MatchConditionEvaluator, MatchConditionSpec } from './match-conditions.ts';

const programs = new Map<string, Program | string>();

function programFor(expression: string): Program | string {
  let p = programs.get(expression);
  if (p === undefined) {
    const r = compileMatchCondition(expression);
    p = r.ok ? r.program : `compilation failed: ${r.errors.map((e) => e.message).join('; ')}`;
    if (programs.size > 1000) programs.clear();
    programs.set(expression, p);
  }
  return p;
}

export const celMatchConditions: MatchConditionEvaluator = (conditions: readonly MatchConditionSpec[], attrs: AdmissionAttributes): boolean => {
  const activation = { object: attrs.object ?? null, oldObject: attrs.oldObject ?? null, request: requestOf(attrs) };
  let error: string | undefined;
  for (const c of conditions) {
    const p = programFor(c.expression);
    if (typeof p === 'string') {
      error ??= `matchCondition '${c.name}': ${p}`;
      continue;
    }
    const r = p.eval(activation);
    if (!r.ok) error ??= `matchCondition '${c.name}': expression '${c.expression}' resulted in error: ${r.error}`;
    else if (r.value === false) return false;
    else if (r.value !== true) error ??= `matchCondition '${c.name}' must evaluate to bool`;
  }
  if (error !== undefined) throw new Error(error);
  return true;
};
