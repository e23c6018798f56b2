// The status of a ValidatingAdmissionPolicy: observedGeneration and the type-checking warnings of its
// expressions, as Kubernetes' validatingadmissionpolicy-status controller (kube-controller-manager) writes
// them. kemu computes them in the apiserver when the spec changes: each expression is checked against the
// schema of every kind its matchConstraints name exactly (no wildcards, at most 10 kinds), with `object` and
// `oldObject` typed by that schema; problems become warnings, never refusals.
import { Environment } from '@marcbachmann/cel-js';
import { findResource, groupVersion, type KubeObject, type ResourceInfo } from '@kemu/api';
import { schemaOfResource, type Field, type Struct } from '../../schema/index.ts';
import { fieldsOf } from '../../schema/walk.ts';
import { registerKubernetesLibrary } from '../../cel/library.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Kubernetes' maxTypesToCheck. */
const MAX_TYPES = 10;

const SCALARS: Readonly<Record<string, string>> = { string: 'string', bytes: 'string', int32: 'int', int64: 'int', bool: 'bool', double: 'double' };

/** Registers the struct's CEL type (and those it holds) and returns the type's name. */
function celTypeOf(env: Environment, s: Struct, done: Map<Struct, string>, visiting: Set<Struct>): string {
  const known = done.get(s);
  if (known) return known;
  // One-value types (Time, Quantity, IntOrString) and structs with unlisted fields stay dynamic.
  if (s.format || s.unlisted === 'any' || visiting.has(s)) return 'dyn';
  visiting.add(s);
  const view = fieldsOf(s);
  const fields: Record<string, string> = {};
  for (const [name, f] of view.fields) fields[name] = fieldType(env, f, done, visiting);
  if (view.unlisted !== 'any') for (const n of view.unlisted) fields[n] = 'dyn';
  const name = `k8s_${done.size}_${(s.name || 'anon').replace(/[^A-Za-z0-9]/g, '_')}`;
  env.registerType(name, { fields });
  visiting.delete(s);
  done.set(s, name);
  return name;
}

function fieldType(env: Environment, f: Field, done: Map<Struct, string>, visiting: Set<Struct>): string {
  const t = f.type;
  let inner: string;
  if (typeof t === 'string') inner = SCALARS[t] ?? 'dyn';
  else if ('struct' in t) inner = celTypeOf(env, t.struct(), done, visiting);
  else inner = `map<string, ${typeof t.map === 'string' ? (SCALARS[t.map] ?? 'dyn') : celTypeOf(env, t.map.struct(), done, visiting)}>`;
  return f.repeated ? `list<${inner}>` : inner;
}

const envs = new Map<string, Environment | null>();

function environmentFor(r: ResourceInfo): Environment | undefined {
  const key = `${r.group}/${r.version}/${r.plural}`;
  if (envs.has(key)) return envs.get(key) ?? undefined;
  const schema = schemaOfResource(r);
  let env: Environment | null = null;
  if (schema) {
    try {
      const e = registerKubernetesLibrary(new Environment({ homogeneousAggregateLiterals: false }));
      const root = celTypeOf(e, { ...schema, name: `${schema.name}_root`, fields: { ...schema.fields, 1001: { name: 'apiVersion', type: 'string', description: '' }, 1002: { name: 'kind', type: 'string', description: '' } } }, new Map(), new Set());
      for (const [n, t] of Object.entries({ object: root, oldObject: root, request: 'dyn', params: 'dyn', namespaceObject: 'dyn', authorizer: 'dyn', variables: 'map' })) e.registerVariable(n, t);
      env = e;
    } catch {
      env = null;
    }
  }
  envs.set(key, env);
  return env ?? undefined;
}

/** The kinds a policy's matchConstraints name without wildcards. */
function exactResources(policy: KubeObject): ResourceInfo[] {
  const spec = isObj(policy.spec) ? policy.spec : {};
  const mc = isObj(spec.matchConstraints) ? spec.matchConstraints : {};
  const out: ResourceInfo[] = [];
  for (const rule of Array.isArray(mc.resourceRules) ? mc.resourceRules : []) {
    if (!isObj(rule)) continue;
    for (const g of strings(rule.apiGroups))
      for (const v of strings(rule.apiVersions))
        for (const res of strings(rule.resources)) {
          if (g === '*' || v === '*' || res.includes('*') || res.includes('/')) continue;
          const r = findResource(g, v, res);
          if (r && !out.includes(r)) out.push(r);
        }
  }
  return out.slice(0, MAX_TYPES);
}

/** cel-go's error rendering: position, message, the source line and a caret. */
function render(expr: string, err: { message: string; range?: { start: number } } | undefined): string {
  const msg = (err?.message ?? 'type check failed').split('\n')[0]!.trim();
  const at = err?.range?.start ?? 0;
  const before = expr.slice(0, at);
  const line = before.split('\n').length;
  const col = at - (before.lastIndexOf('\n') + 1);
  const src = expr.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${msg}\n | ${src}\n | ${'.'.repeat(col)}^`;
}

/** The expressions of a policy with their field paths, and whether each must be a bool / string. */
function expressionsOf(policy: KubeObject): { fieldRef: string; expr: string; want?: string }[] {
  const spec = isObj(policy.spec) ? policy.spec : {};
  const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
  const out: { fieldRef: string; expr: string; want?: string }[] = [];
  list(spec.validations).forEach((v, i) => {
    out.push({ fieldRef: `spec.validations[${i}].expression`, expr: str(v.expression), want: 'bool' });
    if (str(v.messageExpression)) out.push({ fieldRef: `spec.validations[${i}].messageExpression`, expr: str(v.messageExpression), want: 'string' });
  });
  list(spec.auditAnnotations).forEach((a, i) => out.push({ fieldRef: `spec.auditAnnotations[${i}].valueExpression`, expr: str(a.valueExpression) }));
  list(spec.matchConditions).forEach((m, i) => out.push({ fieldRef: `spec.matchConditions[${i}].expression`, expr: str(m.expression), want: 'bool' }));
  list(spec.variables).forEach((v, i) => out.push({ fieldRef: `spec.variables[${i}].expression`, expr: str(v.expression) }));
  return out;
}

export function typeCheckPolicy(policy: KubeObject): { fieldRef: string; warning: string }[] {
  const kinds = exactResources(policy)
    .map((r) => ({ r, env: environmentFor(r) }))
    .filter((k): k is { r: ResourceInfo; env: Environment } => k.env !== undefined);
  const warnings: { fieldRef: string; warning: string }[] = [];
  for (const { fieldRef, expr, want } of expressionsOf(policy)) {
    if (!expr) continue;
    const lines: string[] = [];
    for (const { r, env } of kinds) {
      let text: string | undefined;
      try {
        const res = env.check(expr);
        if (!res.valid) text = render(expr, res.error as { message: string; range?: { start: number } } | undefined);
        else if (want && res.type !== want && res.type !== 'dyn') text = `ERROR: <input>:1:1: must evaluate to ${want}, but got ${res.type}`;
      } catch (e) {
        text = render(expr, e as { message: string; range?: { start: number } });
      }
      if (text) lines.push(`${groupVersion(r)}, Kind=${r.kind}: ${text}`);
    }
    if (lines.length > 0) warnings.push({ fieldRef, warning: lines.join('\n') });
  }
  return warnings;
}

export function policyStatus(policy: KubeObject): Record<string, unknown> {
  const expressionWarnings = typeCheckPolicy(policy);
  return { observedGeneration: policy.metadata.generation ?? 1, typeChecking: expressionWarnings.length > 0 ? { expressionWarnings } : {} };
}
