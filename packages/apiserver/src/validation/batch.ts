// Job and CronJob validation (pkg/apis/batch/validation/validation.go): counts, selector and template labels,
// restartPolicy, Indexed limits, the generated selector's labels, immutable fields on update, the cron
// schedule and time zone.
import { labelSelectorAsSelector, parseCronSchedule, selectorMatches, timeZoneError } from '@kemu/api';
import type { KubeObject, LabelSelector, StatusCause } from '@kemu/api';
import { JOB_LABELS } from '@kemu/api';
import { asArray, child, fieldErrors, isRecord, jsonEqual, key } from './field.ts';
import { validateAnnotations, validateLabels, validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { validatePodSpec } from './pod.ts';
import { validateLabelSelector } from './apps.ts';
import { goLabelSelector, goMap } from './goformat.ts';

const MAX_INDEXED = 100_000;
const MAX_RULES = 20;
const COMPLETION_MODES = ['NonIndexed', 'Indexed'];
const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
const POD_FAILURE_ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];

function nonNegative(v: unknown, path: string, out: StatusCause[]): void {
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isInteger(v)) out.push(fieldErrors.invalid(path, v, 'must be an integer'));
  else if (v < 0) out.push(fieldErrors.invalid(path, v, 'must be greater than or equal to 0'));
}

function templateLabels(spec: Record<string, unknown>): Record<string, string> {
  const tpl = isRecord(spec.template) ? spec.template : {};
  const meta = isRecord(tpl.metadata) ? tpl.metadata : {};
  return isRecord(meta.labels) ? (meta.labels as Record<string, string>) : {};
}

function validatePodFailurePolicy(spec: Record<string, unknown>, path: string, out: StatusCause[]): void {
  const pfp = spec.podFailurePolicy;
  if (!isRecord(pfp)) return;
  const tpl = isRecord(spec.template) && isRecord(spec.template.spec) ? spec.template.spec : {};
  if (tpl.restartPolicy !== 'Never')
    out.push(fieldErrors.invalid(child(path, 'template', 'spec', 'restartPolicy'), tpl.restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  const rules = asArray(pfp.rules) ?? [];
  const rp = child(path, 'podFailurePolicy', 'rules');
  if (rules.length > MAX_RULES) out.push(fieldErrors.tooMany(rp, rules.length, MAX_RULES));
  rules.forEach((r, i) => {
    const p = `${rp}[${i}]`;
    if (!isRecord(r)) return;
    if (r.action === undefined || r.action === '') out.push(fieldErrors.required(child(p, 'action'), ''));
    else if (!POD_FAILURE_ACTIONS.includes(String(r.action))) out.push(fieldErrors.notSupported(child(p, 'action'), r.action, POD_FAILURE_ACTIONS));
    if (r.action === 'FailIndex' && (spec.backoffLimitPerIndex === undefined || spec.backoffLimitPerIndex === null))
      out.push(fieldErrors.invalid(child(p, 'action'), r.action, 'requires the backoffLimitPerIndex to be set'));
    const hasExit = isRecord(r.onExitCodes);
    const hasConds = (asArray(r.onPodConditions)?.length ?? 0) > 0;
    if (hasExit && hasConds) out.push(fieldErrors.invalid(p, r, 'specifying both OnExitCodes and OnPodConditions is not supported'));
    else if (!hasExit && !hasConds) out.push(fieldErrors.invalid(p, r, 'specifying one of OnExitCodes and OnPodConditions is required'));
    if (isRecord(r.onExitCodes)) {
      const ep = child(p, 'onExitCodes');
      const op = r.onExitCodes.operator;
      if (op !== 'In' && op !== 'NotIn') out.push(fieldErrors.notSupported(child(ep, 'operator'), op, ['In', 'NotIn']));
      const values = asArray(r.onExitCodes.values) ?? [];
      if (values.length === 0) out.push(fieldErrors.invalid(child(ep, 'values'), values, 'at least one value is required'));
      if (values.length > 255) out.push(fieldErrors.tooMany(child(ep, 'values'), values.length, 255));
      let prev = -Infinity;
      values.forEach((v, j) => {
        const vp = `${child(ep, 'values')}[${j}]`;
        if (op === 'In' && v === 0) out.push(fieldErrors.invalid(vp, v, 'must not be 0 for the In operator'));
        if (typeof v === 'number' && v === prev) out.push(fieldErrors.duplicate(vp, v));
        else if (typeof v === 'number' && v < prev) out.push(fieldErrors.invalid(vp, v, 'must be ordered'));
        if (typeof v === 'number') prev = v;
      });
    }
  });
}

function validateSuccessPolicy(spec: Record<string, unknown>, path: string, out: StatusCause[]): void {
  const sp = spec.successPolicy;
  if (!isRecord(sp)) return;
  const p = child(path, 'successPolicy');
  if (spec.completionMode !== 'Indexed') out.push(fieldErrors.invalid(p, sp, 'requires indexed completion mode'));
  const rules = asArray(sp.rules) ?? [];
  if (rules.length === 0) out.push(fieldErrors.required(child(p, 'rules'), 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_RULES) out.push(fieldErrors.tooMany(child(p, 'rules'), rules.length, MAX_RULES));
  rules.forEach((r, i) => {
    const rp = `${child(p, 'rules')}[${i}]`;
    if (!isRecord(r)) return;
    if ((r.succeededIndexes === undefined || r.succeededIndexes === null) && (r.succeededCount === undefined || r.succeededCount === null))
      out.push(fieldErrors.required(rp, 'at least one of succeededCount or succeededIndexes must be specified'));
    if (typeof r.succeededCount === 'number') {
      if (r.succeededCount < 0) out.push(fieldErrors.invalid(child(rp, 'succeededCount'), r.succeededCount, 'must be greater than or equal to 0'));
      if (typeof spec.completions === 'number' && r.succeededCount > spec.completions)
        out.push(fieldErrors.invalid(child(rp, 'succeededCount'), r.succeededCount, `must be less than or equal to ${spec.completions} (the number of specified completions)`));
    }
  });
}

/** validateJobSpec: the checks a Job and a CronJob's jobTemplate share. */
function validateJobSpec(spec: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  nonNegative(spec.parallelism, child(path, 'parallelism'), out);
  nonNegative(spec.completions, child(path, 'completions'), out);
  nonNegative(spec.activeDeadlineSeconds, child(path, 'activeDeadlineSeconds'), out);
  nonNegative(spec.backoffLimit, child(path, 'backoffLimit'), out);
  nonNegative(spec.ttlSecondsAfterFinished, child(path, 'ttlSecondsAfterFinished'), out);
  nonNegative(spec.backoffLimitPerIndex, child(path, 'backoffLimitPerIndex'), out);
  nonNegative(spec.maxFailedIndexes, child(path, 'maxFailedIndexes'), out);
  const mode = spec.completionMode;
  if (mode !== undefined && mode !== null && !COMPLETION_MODES.includes(String(mode))) out.push(fieldErrors.notSupported(child(path, 'completionMode'), mode, COMPLETION_MODES));
  if (mode === 'Indexed') {
    if (spec.completions === undefined || spec.completions === null) out.push(fieldErrors.required(child(path, 'completions'), 'when completion mode is Indexed'));
    else if (typeof spec.completions === 'number' && spec.completions > MAX_INDEXED)
      out.push(fieldErrors.invalid(child(path, 'completions'), spec.completions, `must be less than or equal to ${MAX_INDEXED} when completion mode is Indexed`));
    if (typeof spec.parallelism === 'number' && spec.parallelism > MAX_INDEXED)
      out.push(fieldErrors.invalid(child(path, 'parallelism'), spec.parallelism, `must be less than or equal to ${MAX_INDEXED} when completion mode is Indexed`));
  } else if (spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null)
    out.push(fieldErrors.required(child(path, 'completionMode'), 'when backoffLimitPerIndex is specified, completionMode must be Indexed'));
  if (spec.maxFailedIndexes !== undefined && spec.maxFailedIndexes !== null && (spec.backoffLimitPerIndex === undefined || spec.backoffLimitPerIndex === null))
    out.push(fieldErrors.required(child(path, 'backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  validatePodFailurePolicy(spec, path, out);
  validateSuccessPolicy(spec, path, out);
  const tpl = spec.template;
  if (!isRecord(tpl)) {
    out.push(fieldErrors.required(child(path, 'template')));
    return out;
  }
  const meta = isRecord(tpl.metadata) ? tpl.metadata : {};
  out.push(...validateLabels(meta.labels, child(path, 'template', 'metadata', 'labels')));
  out.push(...validateAnnotations(meta.annotations, child(path, 'template', 'metadata', 'annotations')));
  out.push(...validatePodSpec(tpl.spec, child(path, 'template', 'spec')));
  const tspec = isRecord(tpl.spec) ? tpl.spec : {};
  if (tspec.restartPolicy !== 'OnFailure' && tspec.restartPolicy !== 'Never')
    out.push(fieldErrors.notSupported(child(path, 'template', 'spec', 'restartPolicy'), tspec.restartPolicy ?? '', ['OnFailure', 'Never']));
  return out;
}

/** ValidateHasLabel: the generated selector's labels must be on the template with the Job's values. */
function hasLabel(labels: Record<string, string>, k: string, v: string, out: StatusCause[]): void {
  const p = key('spec.template.metadata.labels', k);
  if (labels[k] === undefined) out.push(fieldErrors.required(p, `must be '${v}'`));
  else if (labels[k] !== v) out.push(fieldErrors.invalid(p, labels[k], `must be '${v}'`));
}

export function validateJob(job: KubeObject): StatusCause[] {
  const out = validateObjectMeta(job.metadata, { namespaced: true });
  if (!isRecord(job.spec)) return [...out, fieldErrors.required('spec')];
  const spec = job.spec;
  const labels = templateLabels(spec);
  if (spec.manualSelector !== true) {
    const uid = job.metadata.uid ?? '';
    hasLabel(labels, JOB_LABELS.legacyControllerUid, uid, out);
    hasLabel(labels, JOB_LABELS.legacyJobName, job.metadata.name ?? '', out);
    hasLabel(labels, JOB_LABELS.controllerUid, uid, out);
    hasLabel(labels, JOB_LABELS.jobName, job.metadata.name ?? '', out);
  }
  const sel = spec.selector;
  if (sel === undefined || sel === null) out.push(fieldErrors.required('spec.selector'));
  else {
    const errs = validateLabelSelector(sel, 'spec.selector');
    out.push(...errs);
    if (errs.length === 0 && isRecord(sel) && !selectorMatches(labelSelectorAsSelector(sel as LabelSelector), labels))
      out.push(fieldErrors.invalid('spec.template.metadata.labels', goMap(labels), '`selector` does not match template `labels`'));
  }
  out.push(...validateJobSpec(spec, 'spec'));
  return out;
}

/** Fields a Job keeps for life (ValidateJobSpecUpdate); the template may change only while suspended and never started. */
export function validateJobUpdate(job: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateJob(job).filter((c) => !c.field?.startsWith('metadata'));
  const spec = isRecord(job.spec) ? job.spec : {};
  const oldSpec = isRecord(old.spec) ? old.spec : {};
  const immutable = (f: string, v: unknown) => {
    if (!jsonEqual(spec[f], oldSpec[f])) out.push(fieldErrors.immutable(`spec.${f}`, v));
  };
  immutable('selector', isRecord(spec.selector) ? goLabelSelector(spec.selector) : null);
  if (spec.completionMode !== 'Indexed' || oldSpec.completionMode !== 'Indexed' || !jsonEqual(spec.completions, spec.parallelism)) immutable('completions', spec.completions);
  immutable('completionMode', spec.completionMode);
  immutable('podFailurePolicy', spec.podFailurePolicy);
  immutable('backoffLimitPerIndex', spec.backoffLimitPerIndex);
  immutable('managedBy', spec.managedBy);
  const st = isRecord(old.status) ? old.status : {};
  const neverStarted = oldSpec.suspend === true && (st.startTime === undefined || st.startTime === null);
  if (!neverStarted) immutable('template', spec.template);
  return [...validateObjectMetaUpdate(job.metadata, old.metadata, { namespaced: true }), ...out];
}

export function validateJobStatus(job: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const st = isRecord(job.status) ? job.status : {};
  for (const f of ['active', 'succeeded', 'failed', 'ready', 'terminating']) nonNegative(st[f], `status.${f}`, out);
  return out;
}

function validateSchedule(spec: Record<string, unknown>, out: StatusCause[]): void {
  const schedule = spec.schedule;
  if (schedule === undefined || schedule === null || schedule === '') {
    out.push(fieldErrors.required('spec.schedule'));
    return;
  }
  const s = String(schedule);
  try {
    parseCronSchedule(s);
  } catch (e) {
    out.push(fieldErrors.invalid('spec.schedule', s, (e as Error).message));
  }
  if (s.includes('TZ')) out.push(fieldErrors.invalid('spec.schedule', s, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
}

const TZ_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateTimeZone(tz: unknown, out: StatusCause[]): void {
  if (tz === undefined || tz === null) return;
  const s = String(tz);
  const p = 'spec.timeZone';
  if (s.length === 0) {
    out.push(fieldErrors.invalid(p, s, 'timeZone must be nil or non-empty string'));
    return;
  }
  for (const part of s.split('/'))
    if (part === '.' || part === '..' || part.startsWith('-') || !TZ_PART.test(part))
      out.push(fieldErrors.invalid(p, s, `unknown time zone ${s}`));
  if (s.toLowerCase() === 'local') out.push(fieldErrors.invalid(p, s, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  const err = timeZoneError(s);
  if (err) out.push(fieldErrors.invalid(p, s, err));
}

export function validateCronJob(cj: KubeObject): StatusCause[] {
  const out = validateObjectMeta(cj.metadata, { namespaced: true });
  // Job names add 11 characters (-<minutes since epoch>) and must stay a DNS-1035 label.
  if ((cj.metadata.name ?? '').length > 52) out.push(fieldErrors.invalid('metadata.name', cj.metadata.name, 'must be no more than 52 characters'));
  if (!isRecord(cj.spec)) return [...out, fieldErrors.required('spec')];
  const spec = cj.spec;
  validateSchedule(spec, out);
  validateTimeZone(spec.timeZone, out);
  nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds', out);
  const cp = spec.concurrencyPolicy;
  if (cp === undefined || cp === null || cp === '') out.push(fieldErrors.required('spec.concurrencyPolicy'));
  else if (!CONCURRENCY_POLICIES.includes(String(cp))) out.push(fieldErrors.notSupported('spec.concurrencyPolicy', cp, CONCURRENCY_POLICIES));
  nonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit', out);
  nonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit', out);
  const jt = isRecord(spec.jobTemplate) ? spec.jobTemplate : {};
  const jmeta = isRecord(jt.metadata) ? jt.metadata : {};
  out.push(...validateLabels(jmeta.labels, 'spec.jobTemplate.metadata.labels'));
  out.push(...validateAnnotations(jmeta.annotations, 'spec.jobTemplate.metadata.annotations'));
  const jspec = isRecord(jt.spec) ? jt.spec : undefined;
  if (!jspec) out.push(fieldErrors.required('spec.jobTemplate.spec'));
  else {
    out.push(...validateJobSpec(jspec, 'spec.jobTemplate.spec'));
    if (jspec.manualSelector === true) out.push(fieldErrors.notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
    if (jspec.selector !== undefined && jspec.selector !== null)
      out.push(fieldErrors.invalid('spec.jobTemplate.spec.selector', isRecord(jspec.selector) ? goLabelSelector(jspec.selector) : jspec.selector, '`selector` will be auto-generated'));
  }
  return out;
}

export function validateCronJobUpdate(cj: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateCronJob(cj).filter((c) => !c.field?.startsWith('metadata'));
  return [...validateObjectMetaUpdate(cj.metadata, old.metadata, { namespaced: true }), ...out];
}
