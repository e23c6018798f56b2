// Validation of HorizontalPodAutoscalers (pkg/apis/autoscaling/validation/validation.go), with Kubernetes'
// field paths and messages. An autoscaling/v1 object is validated as the v2 object it converts to, as
// Kubernetes validates the internal form whatever version was sent.
import { tryParseQuantity } from '@kemu/api';
import type { KubeObject, StatusCause } from '@kemu/api';
import { child, fieldErrors, index, isRecord } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { isDNS1123Label, isValidPathSegmentName } from '@kemu/api';
import { hpaV1ToV2 } from '../conversion/hpa.ts';

type Fields = Record<string, unknown>;
const rec = (v: unknown): Fields => (isRecord(v) ? v : {});
const set = (v: unknown): boolean => v !== undefined && v !== null;

const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const METRIC_TARGET_TYPES = ['AverageValue', 'Utilization', 'Value'];
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

/** ValidateCrossVersionObjectReference: kind and name required, each a valid path segment. */
function validateReference(ref: Fields, path: string, out: StatusCause[]): void {
  for (const f of ['kind', 'name'] as const) {
    const v = ref[f];
    if (typeof v !== 'string' || v === '') out.push(fieldErrors.required(child(path, f)));
    else for (const msg of isValidPathSegmentName(v)) out.push(fieldErrors.invalid(child(path, f), v, msg));
  }
}

const positive = (q: unknown): boolean => (tryParseQuantity(q) ?? 0) > 0;

/** validateMetricTarget. */
function validateTarget(t: Fields, path: string, out: StatusCause[]): void {
  if (!set(t.type) || t.type === '') out.push(fieldErrors.required(child(path, 'type'), 'must specify a metric target type'));
  if (!METRIC_TARGET_TYPES.includes(String(t.type))) out.push(fieldErrors.invalid(child(path, 'type'), t.type ?? '', 'must be either Utilization, Value, or AverageValue'));
  if (set(t.value) && !positive(t.value)) out.push(fieldErrors.invalid(child(path, 'value'), t.value, 'must be positive'));
  if (set(t.averageValue) && !positive(t.averageValue)) out.push(fieldErrors.invalid(child(path, 'averageValue'), t.averageValue, 'must be positive'));
  if (set(t.averageUtilization) && Number(t.averageUtilization) < 1) out.push(fieldErrors.invalid(child(path, 'averageUtilization'), t.averageUtilization, 'must be greater than 0'));
}

/** validateMetricIdentifier: a name that is a valid path segment. */
function validateIdentifier(id: Fields, path: string, out: StatusCause[]): void {
  if (typeof id.name !== 'string' || id.name === '') out.push(fieldErrors.required(child(path, 'name'), 'must specify a metric name'));
  else for (const msg of isValidPathSegmentName(id.name)) out.push(fieldErrors.invalid(child(path, 'name'), id.name, msg));
}

/** validateResourceSource / validateContainerResourceSource: a name, and a utilization or an average value. */
function validateResource(src: Fields, path: string, container: boolean, out: StatusCause[]): void {
  if (typeof src.name !== 'string' || src.name === '') out.push(fieldErrors.required(child(path, 'name'), 'must specify a resource name'));
  if (container) {
    if (typeof src.container !== 'string' || src.container === '') out.push(fieldErrors.required(child(path, 'container'), 'must specify a container'));
    else for (const msg of isDNS1123Label(src.container)) out.push(fieldErrors.invalid(child(path, 'container'), src.container, msg));
  }
  const t = rec(src.target);
  const tp = child(path, 'target');
  validateTarget(t, tp, out);
  if (!set(t.averageUtilization) && !set(t.averageValue)) out.push(fieldErrors.required(child(tp, 'averageUtilization'), 'must set either a target raw value or a target utilization'));
  if (set(t.averageUtilization) && set(t.averageValue)) out.push(fieldErrors.forbidden(child(tp, 'averageValue'), 'may not set both a target raw value and a target utilization'));
}

const SOURCE_FIELD: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };

/** validateMetricSpec: a known type and exactly the matching source. */
function validateMetric(m: Fields, path: string, out: StatusCause[]): void {
  const type = typeof m.type === 'string' ? m.type : '';
  if (type === '') out.push(fieldErrors.required(child(path, 'type'), 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type)) out.push(fieldErrors.notSupported(child(path, 'type'), type, METRIC_SOURCE_TYPES));
  const present: string[] = [];
  const check = (f: string, fn: (src: Fields, p: string) => void) => {
    if (!set(m[f])) return;
    present.push(f);
    if (present.length === 1) fn(rec(m[f]), child(path, f));
  };
  check('object', (src, p) => {
    validateReference(rec(src.describedObject), child(p, 'describedObject'), out);
    validateIdentifier(rec(src.metric), child(p, 'metric'), out);
    const t = rec(src.target);
    validateTarget(t, child(p, 'target'), out);
    if (!set(t.value) && !set(t.averageValue)) out.push(fieldErrors.required(child(p, 'target', 'averageValue'), 'must set either a target value or averageValue'));
  });
  check('external', (src, p) => {
    validateIdentifier(rec(src.metric), child(p, 'metric'), out);
    const t = rec(src.target);
    validateTarget(t, child(p, 'target'), out);
    if (!set(t.value) && !set(t.averageValue)) out.push(fieldErrors.required(child(p, 'target', 'averageValue'), 'must set either a target value for metric or a per-pod target'));
    if (set(t.value) && set(t.averageValue)) out.push(fieldErrors.forbidden(child(p, 'target', 'value'), 'may not set both a target value for metric and a per-pod target'));
  });
  check('pods', (src, p) => {
    validateIdentifier(rec(src.metric), child(p, 'metric'), out);
    const t = rec(src.target);
    validateTarget(t, child(p, 'target'), out);
    if (!set(t.averageValue)) out.push(fieldErrors.required(child(p, 'target', 'averageValue'), 'must specify a positive target averageValue'));
  });
  check('resource', (src, p) => validateResource(src, p, false, out));
  check('containerResource', (src, p) => validateResource(src, p, true, out));
  const expected = SOURCE_FIELD[type] ?? '';
  if (expected !== '' && !present.includes(expected)) out.push(fieldErrors.required(child(path, expected), 'must populate information for the given metric source'));
  if (present.length !== 1) for (const f of present.filter((f) => f !== expected)) out.push(fieldErrors.forbidden(child(path, f), 'must populate the given metric source only'));
}

/** validateScalingRules. */
function validateRules(rules: Fields, path: string, out: StatusCause[]): void {
  const w = rules.stabilizationWindowSeconds;
  if (set(w)) {
    if (Number(w) < 0) out.push(fieldErrors.invalid(child(path, 'stabilizationWindowSeconds'), w, 'must be greater than or equal to zero'));
    else if (Number(w) > MAX_STABILIZATION_WINDOW_SECONDS)
      out.push(fieldErrors.invalid(child(path, 'stabilizationWindowSeconds'), w, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  }
  const sp = rules.selectPolicy;
  if (set(sp) && !SELECT_POLICIES.includes(String(sp))) out.push(fieldErrors.notSupported(child(path, 'selectPolicy'), sp, SELECT_POLICIES));
  const policies = Array.isArray(rules.policies) ? rules.policies : [];
  if (policies.length === 0 && sp !== 'Disabled') out.push(fieldErrors.required(child(path, 'policies'), 'must specify at least one Policy'));
  policies.forEach((raw, i) => {
    const p = rec(raw);
    const pp = index(child(path, 'policies'), i);
    if (!POLICY_TYPES.includes(String(p.type))) out.push(fieldErrors.notSupported(child(pp, 'type'), p.type ?? '', POLICY_TYPES));
    if (!(Number(p.value) > 0)) out.push(fieldErrors.invalid(child(pp, 'value'), p.value ?? 0, 'must be greater than zero'));
    const period = Number(p.periodSeconds);
    if (!(period > 0)) out.push(fieldErrors.invalid(child(pp, 'periodSeconds'), p.periodSeconds ?? 0, 'must be greater than zero'));
    else if (period > MAX_PERIOD_SECONDS) out.push(fieldErrors.invalid(child(pp, 'periodSeconds'), p.periodSeconds, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
}

function validateSpec(spec: Fields, out: StatusCause[]): void {
  const min = spec.minReplicas;
  const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0;
  if (set(min) && Number(min) < 1) out.push(fieldErrors.invalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (max < 1) out.push(fieldErrors.invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (set(min) && max < Number(min)) out.push(fieldErrors.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  validateReference(rec(spec.scaleTargetRef), 'spec.scaleTargetRef', out);
  const metrics = (Array.isArray(spec.metrics) ? spec.metrics : []).map(rec);
  metrics.forEach((m, i) => validateMetric(m, index('spec.metrics', i), out));
  if (set(min) && Number(min) === 0 && !metrics.some((m) => m.type === 'Object' || m.type === 'External'))
    out.push(fieldErrors.forbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  if (set(spec.behavior)) {
    const b = rec(spec.behavior);
    if (set(b.scaleUp)) validateRules(rec(b.scaleUp), 'spec.behavior.scaleUp', out);
    if (set(b.scaleDown)) validateRules(rec(b.scaleDown), 'spec.behavior.scaleDown', out);
  }
}

const asV2 = (o: KubeObject): KubeObject => (o.apiVersion === 'autoscaling/v1' ? hpaV1ToV2(o) : o);

export function validateHorizontalPodAutoscaler(o: KubeObject): StatusCause[] {
  const out = validateObjectMeta(o.metadata, { namespaced: true });
  validateSpec(rec(asV2(o).spec), out);
  return out;
}

export function validateHorizontalPodAutoscalerUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(o.metadata, old.metadata, { namespaced: true });
  validateSpec(rec(asV2(o).spec), out);
  return out;
}

/** ValidateHorizontalPodAutoscalerStatusUpdate. */
export function validateHorizontalPodAutoscalerStatusUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(o.metadata, old.metadata, { namespaced: true });
  const st = rec(o.status);
  for (const [f, path] of [['currentReplicas', 'status.currentReplicas'], ['desiredReplicas', 'status.desiredReplicas']] as const) {
    const v = st[f];
    if (typeof v === 'number' && v < 0) out.push(fieldErrors.invalid(path, v, 'must be greater than or equal to 0'));
  }
  return out;
}
