// A ValidatingAdmissionPolicy's expressions compiled once per resourceVersion, and their evaluation for one
// (binding, param) pair: matchConditions, lazy variables, validations with message/messageExpression/reason,
// and audit annotations. Returns decisions; enforcing them is the plugin's job.
import type { KubeObject } from '@kemu/api';
import { lazy, type Program } from '../../cel/index.ts';
import { compileMatchCondition, compilePolicyExpression } from './environment.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

type Compiled = { program: Program } | { error: string };
const compileOr = (expr: string, f: typeof compilePolicyExpression): Compiled => {
  const r = f(expr);
  return r.ok ? { program: r.program } : { error: `compilation failed: ${r.errors.map((e) => e.message).join('; ')}` };
};

export interface CompiledPolicy {
  matchConditions: { name: string; expression: string; c: Compiled }[];
  variables: { name: string; expression: string; c: Compiled }[];
  validations: { expression: string; c: Compiled; message: string; messageExpression?: Compiled; reason?: string }[];
  auditAnnotations: { key: string; expression: string; c: Compiled }[];
}

const byKey = new Map<string, CompiledPolicy>();

export function compilePolicy(policy: KubeObject): CompiledPolicy {
  const key = `${policy.metadata.uid ?? policy.metadata.name}/${policy.metadata.resourceVersion ?? ''}`;
  const hit = byKey.get(key);
  if (hit) return hit;
  const spec = isObj(policy.spec) ? policy.spec : {};
  const compiled: CompiledPolicy = {
    matchConditions: arr(spec.matchConditions).map((m) => ({ name: str(m.name), expression: str(m.expression), c: compileOr(str(m.expression), compileMatchCondition) })),
    variables: arr(spec.variables).map((v) => ({ name: str(v.name), expression: str(v.expression), c: compileOr(str(v.expression), compilePolicyExpression) })),
    validations: arr(spec.validations).map((v) => ({
      expression: str(v.expression),
      c: compileOr(str(v.expression), compilePolicyExpression),
      message: str(v.message),
      ...(str(v.messageExpression) ? { messageExpression: compileOr(str(v.messageExpression), compilePolicyExpression) } : {}),
      ...(str(v.reason) ? { reason: str(v.reason) } : {}),
    })),
    auditAnnotations: arr(spec.auditAnnotations).map((a) => ({ key: str(a.key), expression: str(a.valueExpression), c: compileOr(str(a.valueExpression), compilePolicyExpression) })),
  };
  if (byKey.size > 1000) byKey.clear();
  byKey.set(key, compiled);
  return compiled;
}

export type Decision =
  | { kind: 'fail'; message: string; reason?: string; expressionIndex: number }
  | { kind: 'error'; message: string; expressionIndex?: number };

export interface PolicyEvaluation {
  /** False when a matchCondition was false: the policy does not apply. */
  matched: boolean;
  decisions: Decision[];
  annotations: { key: string; value: string }[];
}

/** Evaluates every expression for one set of inputs (object, oldObject, request, params, namespaceObject). */
export function evaluatePolicy(cp: CompiledPolicy, inputs: Obj): PolicyEvaluation {
  const run = (c: Compiled, expression: string, activation: Obj): { ok: true; value: unknown } | { ok: false; error: string } => {
    if ('error' in c) return { ok: false, error: c.error };
    const r = c.program.eval(activation);
    return r.ok ? { ok: true, value: r.value } : { ok: false, error: `expression '${expression}' resulted in error: ${r.error}` };
  };
  // matchConditions: any false skips the policy; otherwise the first error decides.
  let mcError: string | undefined;
  for (const m of cp.matchConditions) {
    const r = run(m.c, m.expression, inputs);
    if (r.ok && r.value === false) return { matched: false, decisions: [], annotations: [] };
    if (!r.ok) mcError ??= r.error;
    else if (typeof r.value !== 'boolean') mcError ??= `matchCondition '${m.name}' must evaluate to bool`;
  }
  if (mcError !== undefined) return { matched: true, decisions: [{ kind: 'error', message: mcError }], annotations: [] };

  const variables: Obj = {};
  for (const v of cp.variables) {
    variables[v.name] = lazy(() => {
      const r = run(v.c, v.expression, { ...inputs, variables });
      if (!r.ok) throw new Error(r.error);
      return r.value;
    });
  }
  const activation = { ...inputs, variables };
  const decisions: Decision[] = [];
  cp.validations.forEach((v, i) => {
    const r = run(v.c, v.expression, activation);
    if (!r.ok) decisions.push({ kind: 'error', message: r.error, expressionIndex: i });
    else if (r.value !== true) {
      if (typeof r.value !== 'boolean') decisions.push({ kind: 'error', message: `expression '${v.expression}' resulted in error: no such overload`, expressionIndex: i });
      else decisions.push({ kind: 'fail', message: failureMessage(v, run, activation), ...(v.reason ? { reason: v.reason } : {}), expressionIndex: i });
    }
  });
  const annotations: { key: string; value: string }[] = [];
  for (const a of cp.auditAnnotations) {
    const r = run(a.c, a.expression, activation);
    if (!r.ok) decisions.push({ kind: 'error', message: r.error });
    else if (typeof r.value === 'string' && r.value !== '') annotations.push({ key: a.key, value: r.value.slice(0, 10 * 1024) });
    else if (r.value !== null && typeof r.value !== 'string') decisions.push({ kind: 'error', message: `valueExpression '${a.expression}' resulted in unsupported return type: ${typeof r.value}` });
  }
  return { matched: true, decisions, annotations };
}

function failureMessage(
  v: CompiledPolicy['validations'][number],
  run: (c: Compiled, e: string, a: Obj) => { ok: true; value: unknown } | { ok: false; error: string },
  activation: Obj,
): string {
  // A messageExpression that errs or yields an empty, blank or multi-line string falls back to message.
  if (v.messageExpression) {
    const r = run(v.messageExpression, '', activation);
    if (r.ok && typeof r.value === 'string' && r.value.trim() !== '' && !r.value.includes('\n')) return r.value;
  }
  return v.message || `failed expression: ${v.expression.trim()}`;
}
