// Validation of PodDisruptionBudgets (pkg/apis/policy/validation), ReplicationControllers, PodTemplates,
// LimitRanges and ResourceQuotas (pkg/apis/core/validation), with Kubernetes' field paths and messages.
import { selectorFromSet, selectorMatches } from '@kemu/api';
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, child, fieldErrors, index, isRecord, key } from './field.ts';
import { validateAnnotations, validateLabels, validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { validateLabelSelector } from './apps.ts';
import { validatePodSpec } from './pod.ts';
import { validateResourceList } from './resources.ts';
import { goMap } from './goformat.ts';

function nonNegative(v: unknown, path: string, out: StatusCause[]): void {
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isInteger(v)) out.push(fieldErrors.invalid(path, v, 'must be an integer'));
  else if (v < 0) out.push(fieldErrors.invalid(path, v, 'must be greater than or equal to 0'));
}

/** ValidatePositiveIntOrPercent + IsNotMoreThan100Percent. */
export function validateIntOrPercent(v: unknown, path: string, out: StatusCause[]): void {
  if (v === undefined || v === null) return;
  if (typeof v === 'number') return nonNegative(v, path, out);
  if (typeof v === 'string' && /^[0-9]+%$/.test(v)) {
    if (Number(v.slice(0, -1)) > 100) out.push(fieldErrors.invalid(path, v, 'must not be greater than 100%'));
    return;
  }
  out.push(fieldErrors.invalid(path, v, "must be an integer or percentage (e.g '5%')"));
}

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

export function validatePodDisruptionBudget(pdb: KubeObject): StatusCause[] {
  const out = validateObjectMeta(pdb.metadata, { namespaced: true });
  const spec = isRecord(pdb.spec) ? pdb.spec : {};
  if (spec.minAvailable != null && spec.maxUnavailable != null)
    out.push(fieldErrors.invalid('spec.minAvailable', spec.minAvailable, 'minAvailable and maxUnavailable cannot be both set'));
  validateIntOrPercent(spec.minAvailable, 'spec.minAvailable', out);
  validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable', out);
  if (spec.selector != null) out.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const p = spec.unhealthyPodEvictionPolicy;
  if (p != null && p !== '' && !EVICTION_POLICIES.includes(String(p)))
    out.push(fieldErrors.notSupported('spec.unhealthyPodEvictionPolicy', p, EVICTION_POLICIES));
  return out;
}

export function validatePodDisruptionBudgetUpdate(pdb: KubeObject, old: KubeObject): StatusCause[] {
  return [
    ...validateObjectMetaUpdate(pdb.metadata, old.metadata, { namespaced: true }),
    ...validatePodDisruptionBudget(pdb).filter((c) => !c.field?.startsWith('metadata')),
  ];
}

export function validatePodDisruptionBudgetStatus(pdb: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const st = isRecord(pdb.status) ? pdb.status : {};
  for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) nonNegative(st[f], `status.${f}`, out);
  return out;
}

/** ValidatePodTemplateSpecForRC: template labels must satisfy the selector; restartPolicy Always. */
function validateRCTemplate(spec: Record<string, unknown>, out: StatusCause[]): void {
  const tpl = spec.template;
  if (!isRecord(tpl)) {
    out.push(fieldErrors.required('spec.template'));
    return;
  }
  const meta = isRecord(tpl.metadata) ? tpl.metadata : {};
  const labels = isRecord(meta.labels) ? (meta.labels as Record<string, string>) : {};
  const sel = isRecord(spec.selector) ? (spec.selector as Record<string, string>) : {};
  if (Object.keys(sel).length > 0 && !selectorMatches(selectorFromSet(sel), labels))
    out.push(fieldErrors.invalid('spec.template.metadata.labels', goMap(labels), '`selector` does not match template `labels`'));
  out.push(...validateLabels(meta.labels, 'spec.template.metadata.labels'));
  out.push(...validateAnnotations(meta.annotations, 'spec.template.metadata.annotations'));
  out.push(...validatePodSpec(tpl.spec, 'spec.template.spec'));
  const tspec = isRecord(tpl.spec) ? tpl.spec : {};
  if (tspec.restartPolicy !== undefined && tspec.restartPolicy !== 'Always')
    out.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', tspec.restartPolicy, ['Always']));
  if (tspec.activeDeadlineSeconds != null)
    out.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'));
}

export function validateReplicationController(rc: KubeObject): StatusCause[] {
  const out = validateObjectMeta(rc.metadata, { namespaced: true });
  if (!isRecord(rc.spec)) return [...out, fieldErrors.required('spec')];
  const spec = rc.spec;
  nonNegative(spec.replicas, 'spec.replicas', out);
  nonNegative(spec.minReadySeconds, 'spec.minReadySeconds', out);
  if (!isRecord(spec.selector) || Object.keys(spec.selector).length === 0) out.push(fieldErrors.required('spec.selector'));
  else out.push(...validateLabels(spec.selector, 'spec.selector'));
  validateRCTemplate(spec, out);
  return out;
}

export function validateReplicationControllerUpdate(rc: KubeObject, old: KubeObject): StatusCause[] {
  return [
    ...validateObjectMetaUpdate(rc.metadata, old.metadata, { namespaced: true }),
    ...validateReplicationController(rc).filter((c) => !c.field?.startsWith('metadata')),
  ];
}

export function validatePodTemplate(pt: KubeObject): StatusCause[] {
  const out = validateObjectMeta(pt.metadata, { namespaced: true });
  const tpl = isRecord(pt.template) ? pt.template : {};
  const meta = isRecord(tpl.metadata) ? tpl.metadata : {};
  out.push(...validateLabels(meta.labels, 'template.metadata.labels'));
  out.push(...validateAnnotations(meta.annotations, 'template.metadata.annotations'));
  out.push(...validatePodSpec(tpl.spec, 'template.spec'));
  return out;
}

export function validatePodTemplateUpdate(pt: KubeObject, old: KubeObject): StatusCause[] {
  return [...validateObjectMetaUpdate(pt.metadata, old.metadata, { namespaced: true }), ...validatePodTemplate(pt).filter((c) => !c.field?.startsWith('metadata'))];
}

const LIMIT_TYPES = ['Container', 'PersistentVolumeClaim', 'Pod'];

/** ValidateLimitRange: each item's type, quantities, and min ≤ defaultRequest ≤ default ≤ max. */
export function validateLimitRange(lr: KubeObject): StatusCause[] {
  const out = validateObjectMeta(lr.metadata, { namespaced: true });
  const spec = isRecord(lr.spec) ? lr.spec : {};
  (asArray(spec.limits) ?? []).forEach((item: unknown, i) => {
    const p = index(child('spec', 'limits'), i);
    if (!isRecord(item)) return;
    if (item.type === undefined || item.type === '') out.push(fieldErrors.required(child(p, 'type')));
    else if (!LIMIT_TYPES.includes(String(item.type)) && !String(item.type).includes('/')) out.push(fieldErrors.notSupported(child(p, 'type'), item.type, LIMIT_TYPES));
    const max = validateResourceList(item.max, child(p, 'max'), out);
    const min = validateResourceList(item.min, child(p, 'min'), out);
    const def = validateResourceList(item.default, child(p, 'default'), out);
    const defReq = validateResourceList(item.defaultRequest, child(p, 'defaultRequest'), out);
    const ratio = validateResourceList(item.maxLimitRequestRatio, child(p, 'maxLimitRequestRatio'), out);
    const raw = (m: unknown, k: string) => String((isRecord(m) ? m[k] : undefined) ?? '');
    if (item.type === 'Pod') {
      if (def.size > 0) out.push(fieldErrors.forbidden(child(p, 'default'), 'may not be specified when `type` is \'Pod\''));
      if (defReq.size > 0) out.push(fieldErrors.forbidden(child(p, 'defaultRequest'), 'may not be specified when `type` is \'Pod\''));
    }
    for (const [k, lo] of min) {
      const hi = max.get(k);
      if (hi !== undefined && lo > hi) out.push(fieldErrors.invalid(key(child(p, 'min'), k), raw(item.min, k), `min value ${raw(item.min, k)} is greater than max value ${raw(item.max, k)}`));
    }
    for (const [k, v] of defReq) {
      const lo = min.get(k);
      const hi = max.get(k);
      const d = def.get(k);
      const at = key(child(p, 'defaultRequest'), k);
      if (lo !== undefined && lo > v) out.push(fieldErrors.invalid(at, raw(item.defaultRequest, k), `min value ${raw(item.min, k)} is greater than default request value ${raw(item.defaultRequest, k)}`));
      if (hi !== undefined && v > hi) out.push(fieldErrors.invalid(at, raw(item.defaultRequest, k), `default request value ${raw(item.defaultRequest, k)} is greater than max value ${raw(item.max, k)}`));
      if (d !== undefined && v > d) out.push(fieldErrors.invalid(at, raw(item.defaultRequest, k), `default request value ${raw(item.defaultRequest, k)} is greater than default limit value ${raw(item.default, k)}`));
    }
    for (const [k, v] of def) {
      const lo = min.get(k);
      const hi = max.get(k);
      const at = key(child(p, 'default'), k);
      if (lo !== undefined && lo > v) out.push(fieldErrors.invalid(at, raw(item.default, k), `min value ${raw(item.min, k)} is greater than default value ${raw(item.default, k)}`));
      if (hi !== undefined && v > hi) out.push(fieldErrors.invalid(at, raw(item.default, k), `default value ${raw(item.default, k)} is greater than max value ${raw(item.max, k)}`));
    }
    for (const [k, v] of ratio) {
      if (v < 1) out.push(fieldErrors.invalid(key(child(p, 'maxLimitRequestRatio'), k), raw(item.maxLimitRequestRatio, k), `ratio ${raw(item.maxLimitRequestRatio, k)} is less than 1`));
    }
  });
  return out;
}

export function validateLimitRangeUpdate(lr: KubeObject, old: KubeObject): StatusCause[] {
  return [...validateObjectMetaUpdate(lr.metadata, old.metadata, { namespaced: true }), ...validateLimitRange(lr).filter((c) => !c.field?.startsWith('metadata'))];
}

const QUOTA_SCOPES = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating'];

export function validateResourceQuota(q: KubeObject): StatusCause[] {
  const out = validateObjectMeta(q.metadata, { namespaced: true });
  const spec = isRecord(q.spec) ? q.spec : {};
  validateResourceList(spec.hard, 'spec.hard', out);
  (asArray(spec.scopes) ?? []).forEach((s: unknown) => {
    if (!QUOTA_SCOPES.includes(String(s))) out.push(fieldErrors.notSupported('spec.scopes', s, QUOTA_SCOPES));
  });
  const sel = isRecord(spec.scopeSelector) ? spec.scopeSelector : {};
  (asArray(sel.matchExpressions) ?? []).forEach((e: unknown, i) => {
    if (!isRecord(e)) return;
    const p = index('spec.scopeSelector.matchExpressions', i);
    if (!QUOTA_SCOPES.includes(String(e.scopeName))) out.push(fieldErrors.notSupported(child(p, 'scopeName'), e.scopeName, QUOTA_SCOPES));
    const ops = ['DoesNotExist', 'Exists', 'In', 'NotIn'];
    if (!ops.includes(String(e.operator))) out.push(fieldErrors.notSupported(child(p, 'operator'), e.operator, ops));
  });
  return out;
}

export function validateResourceQuotaUpdate(q: KubeObject, old: KubeObject): StatusCause[] {
  return [...validateObjectMetaUpdate(q.metadata, old.metadata, { namespaced: true }), ...validateResourceQuota(q).filter((c) => !c.field?.startsWith('metadata'))];
}

export function validateResourceQuotaStatus(q: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const st = isRecord(q.status) ? q.status : {};
  validateResourceList(st.hard, 'status.hard', out);
  validateResourceList(st.used, 'status.used', out);
  return out;
}
