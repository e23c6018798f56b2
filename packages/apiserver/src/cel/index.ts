// kemu's CEL: compile an expression against declared variables (type-checked), then evaluate it on JSON
// inputs with a bounded cost, as Kubernetes' CEL users do (ValidatingAdmissionPolicy, CRD validation rules,
// webhook matchConditions). Built on @marcbachmann/cel-js plus Kubernetes' extension functions (library.ts).
// Guarantees: compile never throws (errors are returned); eval never throws and never runs past its budget.
import { Environment } from '@marcbachmann/cel-js';

import { CostExceededError, CostMeter, fromCel, toCel } from './activation.ts';
import { registerKubernetesLibrary } from './library.ts';

export { CostExceededError } from './activation.ts';

/** A CEL type name as the library spells it: 'dyn', 'map', 'bool', 'int', 'string', 'list<string>'… */
export type CelType = string;

export interface CelEnvOptions {
  /** The variables an expression may use, by type; anything else is a compile error. */
  variables: Readonly<Record<string, CelType>>;
}

export interface CompileError {
  /** One line, e.g. `Unknown variable: foo`. */
  message: string;
}

export type EvalResult = { ok: true; value: unknown; cost: number } | { ok: false; error: string; costExceeded: boolean; cost: number };

export interface EvalOptions {
  /** Units of cost (one per field/element read from the inputs); Kubernetes' per-expression limit by default. */
  costLimit?: number;
  /** Wall-clock bound in milliseconds. */
  timeoutMs?: number;
}

/** Variables whose value is computed on first use (ValidatingAdmissionPolicy's `variables`). */
export type LazyValue = { readonly lazy: () => unknown };
export const lazy = (f: () => unknown): LazyValue => ({ lazy: f });

export interface Program {
  /** The type the checker inferred ('bool', 'string', 'dyn'…). */
  readonly outputType: string;
  eval(activation: Readonly<Record<string, unknown>>, opts?: EvalOptions): EvalResult;
}

export type CompileResult = { ok: true; program: Program } | { ok: false; errors: CompileError[] };

/** Kubernetes' PerCallLimit (k8s.io/apiserver/pkg/apis/cel). */
export const PER_CALL_COST_LIMIT = 1_000_000;
const DEFAULT_TIMEOUT_MS = 100;

const envCache = new Map<string, Environment>();

function environment(variables: Readonly<Record<string, CelType>>): Environment {
  const key = JSON.stringify(Object.entries(variables).sort(([a], [b]) => (a < b ? -1 : 1)));
  let env = envCache.get(key);
  if (!env) {
    env = registerKubernetesLibrary(new Environment({ homogeneousAggregateLiterals: false, limits: { maxAstNodes: 10000, maxDepth: 100 } }));
    for (const [name, type] of Object.entries(variables)) env.registerVariable(name, type);
    envCache.set(key, env);
  }
  return env;
}

const firstLine = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0]!.trim();

export function compile(expression: string, opts: CelEnvOptions): CompileResult {
  let env: Environment;
  try {
    env = environment(opts.variables);
  } catch (e) {
    return { ok: false, errors: [{ message: firstLine(e) }] };
  }
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = env.parse(expression);
  } catch (e) {
    return { ok: false, errors: [{ message: firstLine(e) }] };
  }
  const checked = parsed.check();
  if (!checked.valid) return { ok: false, errors: [{ message: firstLine(checked.error) }] };
  const outputType = checked.type ?? 'dyn';
  return {
    ok: true,
    program: {
      outputType,
      eval(activation, eo = {}) {
        const meter = new CostMeter(eo.costLimit ?? PER_CALL_COST_LIMIT, performance.now() + (eo.timeoutMs ?? DEFAULT_TIMEOUT_MS));
        const ctx: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(activation)) ctx[k] = wrapVar(v, meter);
        try {
          const value: unknown = parsed(ctx);
          if (value instanceof Promise) return { ok: false, error: 'asynchronous evaluation is not supported', costExceeded: false, cost: meter.cost };
          if (meter.exceeded) throw new CostExceededError();
          return { ok: true, value: fromCel(value), cost: meter.cost };
        } catch (e) {
          const exceeded = meter.exceeded || e instanceof CostExceededError;
          return { ok: false, error: exceeded ? new CostExceededError().message : firstLine(e), costExceeded: exceeded, cost: meter.cost };
        }
      },
    },
  };
}

/** A top-level variable: a plain value, or a map of lazy values (each computed once, on first read). */
function wrapVar(v: unknown, meter: CostMeter): unknown {
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).some(isLazy)) {
    const done = new Map<string, unknown>();
    const target = v as Record<string, unknown>;
    return new Proxy(target, {
      get(t, k) {
        if (typeof k !== 'string') return Reflect.get(t, k);
        if (!done.has(k)) {
          const x = t[k];
          done.set(k, isLazy(x) ? toCel(x.lazy(), meter) : toCel(x, meter));
        }
        return done.get(k);
      },
    });
  }
  return toCel(v, meter);
}

const isLazy = (x: unknown): x is LazyValue => typeof x === 'object' && x !== null && typeof (x as { lazy?: unknown }).lazy === 'function';
