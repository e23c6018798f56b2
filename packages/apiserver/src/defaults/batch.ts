// batch/v1 defaulting (pkg/apis/batch/v1/defaults.go): Job and CronJob. A CronJob's jobTemplate gets only
// the pod template defaults (SetDefaults_Job runs on Jobs, not on JobSpecs).
import { defaultPodTemplate } from './pod.ts';
import { ensureObj, isObj, objects, setDefault } from './util.ts';
import type { Obj } from './util.ts';

const MAX_INT32 = 2_147_483_647;
const unset = (v: unknown): boolean => v === undefined || v === null;

export function defaultJob(job: Obj): void {
  const spec = ensureObj(job, 'spec');
  if (unset(spec.completions) && unset(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (unset(spec.parallelism)) spec.parallelism = 1;
  if (unset(spec.backoffLimit)) spec.backoffLimit = unset(spec.backoffLimitPerIndex) ? 6 : MAX_INT32;
  const meta = ensureObj(job, 'metadata');
  const tpl = isObj(spec.template) ? spec.template : undefined;
  const tplLabels = tpl && isObj(tpl.metadata) && isObj(tpl.metadata.labels) ? tpl.metadata.labels : undefined;
  if (tplLabels && (!isObj(meta.labels) || Object.keys(meta.labels).length === 0)) meta.labels = { ...tplLabels };
  setDefault(spec, 'completionMode', 'NonIndexed');
  if (unset(spec.suspend)) spec.suspend = false;
  if (isObj(spec.podFailurePolicy))
    for (const rule of objects(spec.podFailurePolicy.rules)) for (const p of objects(rule.onPodConditions)) setDefault(p, 'status', 'True');
  if (unset(spec.podReplacementPolicy)) spec.podReplacementPolicy = isObj(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed';
  if (tpl) defaultPodTemplate(tpl);
}

export function defaultCronJob(cj: Obj): void {
  const spec = ensureObj(cj, 'spec');
  setDefault(spec, 'concurrencyPolicy', 'Allow');
  if (unset(spec.suspend)) spec.suspend = false;
  if (unset(spec.successfulJobsHistoryLimit)) spec.successfulJobsHistoryLimit = 3;
  if (unset(spec.failedJobsHistoryLimit)) spec.failedJobsHistoryLimit = 1;
  const jt = isObj(spec.jobTemplate) ? spec.jobTemplate : undefined;
  const jspec = jt && isObj(jt.spec) ? jt.spec : undefined;
  if (jspec && isObj(jspec.template)) defaultPodTemplate(jspec.template);
}
