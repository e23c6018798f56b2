// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding: defaults and validation as Kubernetes'
// admissionregistration v1 SetDefaults_* and validation.go (the checks users meet; expressions must compile).
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, child, index, isRecord } from './field.ts';
import { fieldErrors } from './field.ts';
import { isQualifiedName } from '@kemu/api';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { validateLabelSelector } from './apps.ts';
import { compileMatchCondition, compilePolicyExpression } from '../admission/policy/environment.ts';
import type { CompileResult } from '../cel/index.ts';

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (isRecord(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Exact', 'Equivalent'];
const SCOPES = ['Cluster', 'Namespaced', '*'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const REASONS = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];
const CEL_IDENT = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

function defaultMatchResources(m: Obj): void {
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  m.matchPolicy ??= 'Equivalent';
  for (const list of ['resourceRules', 'excludeResourceRules']) for (const r of asArray(m[list]) ?? []) if (isRecord(r)) r.scope ??= '*';
}

export function defaultValidatingAdmissionPolicy(o: KubeObject): void {
  const spec = rec(o.spec);
  spec.failurePolicy ??= 'Fail';
  if (isRecord(spec.matchConstraints)) defaultMatchResources(spec.matchConstraints);
}

export function defaultValidatingAdmissionPolicyBinding(o: KubeObject): void {
  const spec = rec(o.spec);
  if (isRecord(spec.matchResources)) defaultMatchResources(spec.matchResources);
}

function compiled(out: StatusCause[], path: string, expr: unknown, compileFn: (e: string) => CompileResult): void {
  if (typeof expr !== 'string' || expr.trim() === '') {
    out.push(fieldErrors.required(path));
    return;
  }
  const r = compileFn(expr);
  if (!r.ok) out.push(fieldErrors.invalid(path, expr, `compilation failed: ${r.errors.map((e) => e.message).join('; ')}`));
}

function validateStrings(out: StatusCause[], path: string, v: unknown, allowed?: readonly string[]): void {
  const a = asArray(v) ?? [];
  if (a.length === 0) out.push(fieldErrors.required(path));
  if (a.includes('*') && a.length > 1) out.push(fieldErrors.invalid(path, a, "if '*' is present, must not specify other values"));
  a.forEach((x, i) => {
    if (allowed && !allowed.includes(str(x))) out.push(fieldErrors.notSupported(index(path, i), x, allowed));
  });
}

function validateRules(out: StatusCause[], path: string, rules: unknown): void {
  (asArray(rules) ?? []).forEach((r0, i) => {
    const p = index(path, i);
    const r = rec(r0);
    validateStrings(out, child(p, 'operations'), r.operations, OPERATIONS);
    validateStrings(out, child(p, 'apiGroups'), r.apiGroups);
    validateStrings(out, child(p, 'apiVersions'), r.apiVersions);
    validateStrings(out, child(p, 'resources'), r.resources);
    if (r.scope !== undefined && !SCOPES.includes(str(r.scope))) out.push(fieldErrors.notSupported(child(p, 'scope'), r.scope, SCOPES));
  });
}

function validateMatchResources(out: StatusCause[], path: string, m: Obj, rulesRequired: boolean): void {
  if (m.matchPolicy !== undefined && !MATCH_POLICIES.includes(str(m.matchPolicy))) out.push(fieldErrors.notSupported(child(path, 'matchPolicy'), m.matchPolicy, MATCH_POLICIES));
  if (m.namespaceSelector !== undefined) out.push(...validateLabelSelector(m.namespaceSelector, child(path, 'namespaceSelector')));
  if (m.objectSelector !== undefined) out.push(...validateLabelSelector(m.objectSelector, child(path, 'objectSelector')));
  if (rulesRequired && (asArray(m.resourceRules) ?? []).length === 0) out.push(fieldErrors.required(child(path, 'resourceRules')));
  validateRules(out, child(path, 'resourceRules'), m.resourceRules);
  validateRules(out, child(path, 'excludeResourceRules'), m.excludeResourceRules);
}

function validateSpec(spec: Obj): StatusCause[] {
  const out: StatusCause[] = [];
  if (spec.failurePolicy !== undefined && !FAILURE_POLICIES.includes(str(spec.failurePolicy))) out.push(fieldErrors.notSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES));
  if (spec.paramKind !== undefined) {
    const pk = rec(spec.paramKind);
    if (!str(pk.apiVersion)) out.push(fieldErrors.required('spec.paramKind.apiVersion'));
    else if (str(pk.apiVersion).split('/').length > 2) out.push(fieldErrors.invalid('spec.paramKind.apiVersion', pk.apiVersion, 'must be a group/version'));
    if (!str(pk.kind)) out.push(fieldErrors.required('spec.paramKind.kind'));
  }
  if (!isRecord(spec.matchConstraints)) out.push(fieldErrors.required('spec.matchConstraints'));
  else validateMatchResources(out, 'spec.matchConstraints', spec.matchConstraints, true);
  const validations = asArray(spec.validations) ?? [];
  const audits = asArray(spec.auditAnnotations) ?? [];
  if (validations.length === 0 && audits.length === 0) out.push(fieldErrors.required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
  const seenMC = new Set<string>();
  (asArray(spec.matchConditions) ?? []).forEach((c0, i) => {
    const p = index('spec.matchConditions', i);
    const c = rec(c0);
    const name = str(c.name);
    if (!name) out.push(fieldErrors.required(child(p, 'name')));
    else if (isQualifiedName(name).length > 0) out.push(fieldErrors.invalid(child(p, 'name'), name, "name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"));
    else if (seenMC.has(name)) out.push(fieldErrors.duplicate(child(p, 'name'), name));
    seenMC.add(name);
    compiled(out, child(p, 'expression'), c.expression, compileMatchCondition);
  });
  const seenVar = new Set<string>();
  (asArray(spec.variables) ?? []).forEach((v0, i) => {
    const p = index('spec.variables', i);
    const v = rec(v0);
    const name = str(v.name);
    if (!name) out.push(fieldErrors.required(child(p, 'name')));
    else if (!CEL_IDENT.test(name)) out.push(fieldErrors.invalid(child(p, 'name'), name, 'name is not a valid CEL identifier'));
    else if (seenVar.has(name)) out.push(fieldErrors.duplicate(child(p, 'name'), name));
    seenVar.add(name);
    compiled(out, child(p, 'expression'), v.expression, compilePolicyExpression);
  });
  validations.forEach((v0, i) => {
    const p = index('spec.validations', i);
    const v = rec(v0);
    const expr = str(v.expression);
    compiled(out, child(p, 'expression'), v.expression, compilePolicyExpression);
    const msg = str(v.message);
    if (msg.includes('\n')) out.push(fieldErrors.invalid(child(p, 'message'), msg, 'message must not contain line breaks'));
    else if (expr.includes('\n') && msg === '' && !v.messageExpression) out.push(fieldErrors.required(child(p, 'message'), 'message must be specified if expression contains line breaks'));
    if (v.messageExpression !== undefined && v.messageExpression !== '') compiled(out, child(p, 'messageExpression'), v.messageExpression, compilePolicyExpression);
    if (v.reason !== undefined && !REASONS.includes(str(v.reason))) out.push(fieldErrors.notSupported(child(p, 'reason'), v.reason, REASONS));
  });
  const seenKey = new Set<string>();
  audits.forEach((a0, i) => {
    const p = index('spec.auditAnnotations', i);
    const a = rec(a0);
    const key = str(a.key);
    if (!key) out.push(fieldErrors.required(child(p, 'key')));
    else if (isQualifiedName(key).length > 0) out.push(fieldErrors.invalid(child(p, 'key'), key, 'must be a qualified name'));
    else if (seenKey.has(key)) out.push(fieldErrors.duplicate(child(p, 'key'), key));
    seenKey.add(key);
    compiled(out, child(p, 'valueExpression'), a.valueExpression, compilePolicyExpression);
  });
  return out;
}

export function validateValidatingAdmissionPolicy(o: KubeObject): StatusCause[] {
  return [...validateObjectMeta(o.metadata, { namespaced: false }), ...validateSpec(rec(o.spec))];
}

export function validateValidatingAdmissionPolicyUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  return [...validateObjectMetaUpdate(o.metadata, old.metadata, { namespaced: false }), ...validateSpec(rec(o.spec))];
}

function validateBindingSpec(spec: Obj): StatusCause[] {
  const out: StatusCause[] = [];
  if (!str(spec.policyName)) out.push(fieldErrors.required('spec.policyName'));
  if (spec.paramRef !== undefined) {
    const pr = rec(spec.paramRef);
    const hasName = str(pr.name) !== '';
    if (hasName && pr.selector !== undefined) out.push(fieldErrors.forbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
    else if (!hasName && pr.selector === undefined) out.push(fieldErrors.required('spec.paramRef', 'one of name or selector must be set'));
    if (pr.selector !== undefined) out.push(...validateLabelSelector(pr.selector, 'spec.paramRef.selector'));
    const pnf = pr.parameterNotFoundAction;
    if (pnf === undefined || pnf === '') out.push(fieldErrors.required('spec.paramRef.parameterNotFoundAction'));
    else if (pnf !== 'Allow' && pnf !== 'Deny') out.push(fieldErrors.notSupported('spec.paramRef.parameterNotFoundAction', pnf, ['Allow', 'Deny']));
  }
  if (isRecord(spec.matchResources)) validateMatchResources(out, 'spec.matchResources', spec.matchResources, false);
  const actions = (asArray(spec.validationActions) ?? []).map(str);
  if (actions.length === 0) out.push(fieldErrors.required('spec.validationActions'));
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    const p = index('spec.validationActions', i);
    if (seen.has(a)) out.push(fieldErrors.duplicate(p, a));
    else if (!ACTIONS.includes(a)) out.push(fieldErrors.notSupported(p, a, ACTIONS));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn'))
    out.push(fieldErrors.invalid('spec.validationActions', actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  return out;
}

export function validateValidatingAdmissionPolicyBinding(o: KubeObject): StatusCause[] {
  return [...validateObjectMeta(o.metadata, { namespaced: false }), ...validateBindingSpec(rec(o.spec))];
}

export function validateValidatingAdmissionPolicyBindingUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  return [...validateObjectMetaUpdate(o.metadata, old.metadata, { namespaced: false }), ...validateBindingSpec(rec(o.spec))];
}
