// Deployment and ReplicaSet validation (pkg/apis/apps/validation): replicas, selector (required, non-empty,
// matching the template labels, immutable on update), pod template, rollout strategy.
import { labelSelectorAsSelector, LabelSelectorError, selectorMatches } from '@kemu/api';
import type { KubeObject, LabelSelector, StatusCause } from '@kemu/api';
import { asArray, child, fieldErrors, isRecord, jsonEqual } from './field.ts';
import { validateLabels, validateObjectMeta, validateObjectMetaUpdate, validateAnnotations } from './meta.ts';
import { validatePodSpec } from './pod.ts';
import { regexError } from '@kemu/api';
import { goMap, goLabelSelector } from './goformat.ts';

export function nonNegative(v: unknown, path: string, out: StatusCause[]): void {
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isInteger(v)) out.push(fieldErrors.invalid(path, v, 'must be an integer'));
  else if (v < 0) out.push(fieldErrors.invalid(path, v, 'must be greater than or equal to 0'));
}

export function validateLabelSelector(sel: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!isRecord(sel)) return [fieldErrors.invalid(path, sel, 'must be an object')];
  out.push(...validateLabels(sel.matchLabels, child(path, 'matchLabels')));
  try {
    labelSelectorAsSelector(sel as LabelSelector);
  } catch (e) {
    if (e instanceof LabelSelectorError) out.push(fieldErrors.invalid(child(path, e.field), sel, e.message));
    else throw e;
  }
  (asArray(sel.matchExpressions) ?? []).forEach((e: unknown, i) => {
    const p = `${child(path, 'matchExpressions')}[${i}]`;
    if (!isRecord(e)) return;
    const ops = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
    if (!ops.includes(String(e.operator))) out.push(fieldErrors.notSupported(child(p, 'operator'), e.operator, ops));
  });
  return out;
}

export interface TemplateRules {
  templateRequired: boolean;
  /** Validate the template's pod spec (a StatefulSet's is not). */
  podSpec?: boolean;
  /** The kind named in the activeDeadlineSeconds refusal; none: not checked. */
  deadlineKind?: string;
}

/** Shared by the workloads: selector (not empty), template labels ⊇ selector, template pod spec, restartPolicy Always. */
export function validateSelectorAndTemplate(spec: Record<string, unknown>, kindWord: string, rules: TemplateRules): StatusCause[] {
  const out: StatusCause[] = [];
  const sel = spec.selector;
  let parsed: ReturnType<typeof labelSelectorAsSelector> | undefined;
  if (sel === undefined || sel === null) out.push(fieldErrors.required('spec.selector'));
  else {
    const errs = validateLabelSelector(sel, 'spec.selector');
    out.push(...errs);
    if (isRecord(sel)) {
      const n = Object.keys(isRecord(sel.matchLabels) ? sel.matchLabels : {}).length + (asArray(sel.matchExpressions)?.length ?? 0);
      if (n === 0) out.push(fieldErrors.invalid('spec.selector', goLabelSelector(sel), `empty selector is invalid for ${kindWord}`));
      else if (errs.length === 0) parsed = labelSelectorAsSelector(sel as LabelSelector);
    }
  }
  const tpl = spec.template;
  if (tpl === undefined || tpl === null) {
    if (rules.templateRequired) out.push(fieldErrors.required('spec.template'));
    return out;
  }
  if (!isRecord(tpl)) return [...out, fieldErrors.invalid('spec.template', tpl, 'must be an object')];
  const meta = isRecord(tpl.metadata) ? tpl.metadata : {};
  const labels = isRecord(meta.labels) ? (meta.labels as Record<string, string>) : {};
  if (parsed && !selectorMatches(parsed, labels))
    out.push(fieldErrors.invalid('spec.template.metadata.labels', goMap(labels), '`selector` does not match template `labels`'));
  out.push(...validateLabels(meta.labels, 'spec.template.metadata.labels'));
  out.push(...validateAnnotations(meta.annotations, 'spec.template.metadata.annotations'));
  if (rules.podSpec !== false) out.push(...validatePodSpec(tpl.spec, 'spec.template.spec'));
  const tspec = isRecord(tpl.spec) ? tpl.spec : {};
  if (tspec.restartPolicy !== undefined && tspec.restartPolicy !== 'Always')
    out.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', tspec.restartPolicy, ['Always']));
  if (rules.deadlineKind && tspec.activeDeadlineSeconds !== undefined && tspec.activeDeadlineSeconds !== null)
    out.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', `activeDeadlineSeconds in ${rules.deadlineKind} is not Supported`));
  return out;
}

const PERCENT_RE = /^[0-9]+%$/;

export function intOrPercent(v: unknown, path: string, out: StatusCause[]): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') {
    nonNegative(v, path, out);
    return v;
  }
  if (typeof v === 'string' && PERCENT_RE.test(v)) {
    const n = Number(v.slice(0, -1));
    if (n > 100) out.push(fieldErrors.invalid(path, v, 'must not be greater than 100%'));
    return n;
  }
  out.push(
    fieldErrors.invalid(
      path,
      v,
      regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%'),
    ),
  );
  return undefined;
}

function validateStrategy(strategy: unknown, out: StatusCause[]): void {
  if (!isRecord(strategy)) return;
  const types = ['Recreate', 'RollingUpdate'];
  if (strategy.type === undefined || strategy.type === '') out.push(fieldErrors.required('spec.strategy.type'));
  else if (!types.includes(String(strategy.type))) out.push(fieldErrors.notSupported('spec.strategy.type', strategy.type, types));
  const ru = strategy.rollingUpdate;
  if (strategy.type === 'Recreate' && ru !== undefined && ru !== null)
    out.push(fieldErrors.forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  if (strategy.type === 'RollingUpdate' && isRecord(ru)) {
    const mu = intOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable', out);
    const ms = intOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge', out);
    if (mu === 0 && ms === 0)
      out.push(fieldErrors.invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
  }
}

export function validateDeployment(d: KubeObject): StatusCause[] {
  const out = validateObjectMeta(d.metadata, { namespaced: true });
  if (!isRecord(d.spec)) return [...out, fieldErrors.required('spec')];
  const spec = d.spec;
  nonNegative(spec.replicas, 'spec.replicas', out);
  out.push(...validateSelectorAndTemplate(spec, 'deployment', { templateRequired: true, deadlineKind: 'ReplicaSet' }));
  validateStrategy(spec.strategy, out);
  nonNegative(spec.minReadySeconds, 'spec.minReadySeconds', out);
  nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit', out);
  nonNegative(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds', out);
  if (
    typeof spec.progressDeadlineSeconds === 'number' &&
    typeof spec.minReadySeconds === 'number' &&
    spec.progressDeadlineSeconds <= spec.minReadySeconds
  )
    out.push(fieldErrors.invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  return out;
}

export function validateReplicaSet(rs: KubeObject): StatusCause[] {
  const out = validateObjectMeta(rs.metadata, { namespaced: true });
  if (!isRecord(rs.spec)) return [...out, fieldErrors.required('spec')];
  nonNegative(rs.spec.replicas, 'spec.replicas', out);
  nonNegative(rs.spec.minReadySeconds, 'spec.minReadySeconds', out);
  out.push(...validateSelectorAndTemplate(rs.spec, 'deployment', { templateRequired: false, deadlineKind: 'ReplicaSet' }));
  return out;
}

/** spec.selector may not change (Deployments, ReplicaSets, DaemonSets, StatefulSets). */
export function selectorImmutable(obj: KubeObject, old: KubeObject): StatusCause[] {
  const sel = isRecord(obj.spec) ? obj.spec.selector : undefined;
  const oldSel = isRecord(old.spec) ? old.spec.selector : undefined;
  if (jsonEqual(sel, oldSel)) return [];
  return [fieldErrors.immutable('spec.selector', isRecord(sel) ? goLabelSelector(sel) : null)];
}

export function validateDeploymentUpdate(d: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateDeployment(d).filter((c) => !c.field?.startsWith('metadata'));
  return [...validateObjectMetaUpdate(d.metadata, old.metadata, { namespaced: true }), ...out, ...selectorImmutable(d, old)];
}

export function validateReplicaSetUpdate(rs: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateReplicaSet(rs).filter((c) => !c.field?.startsWith('metadata'));
  return [...validateObjectMetaUpdate(rs.metadata, old.metadata, { namespaced: true }), ...out, ...selectorImmutable(rs, old)];
}

/** Status updates: counts are non-negative. */
export function validateReplicaStatus(obj: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const st = isRecord(obj.status) ? obj.status : {};
  for (const f of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'fullyLabeledReplicas', 'observedGeneration'])
    nonNegative(st[f], `status.${f}`, out);
  return out;
}
