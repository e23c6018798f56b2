// jobs (pkg/registry/batch/job/strategy.go): defaults, the generated selector and labels unless
// manualSelector, status cleared on create, generation, immutable fields, /status keeps spec and labels.
import { JOB_LABELS, R } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultJob } from '../defaults/batch.ts';
import { validateJob, validateJobStatus, validateJobUpdate } from '../validation/batch.ts';
import { validateObjectMetaUpdate } from '../validation/meta.ts';
import { isRecord } from '../validation/field.ts';

/** generateSelector: the job-name and controller-uid labels (legacy and batch.kubernetes.io), selecting the uid. */
function generateSelector(job: KubeObject): void {
  const spec = isRecord(job.spec) ? job.spec : (job.spec = {});
  const tpl = isRecord(spec.template) ? spec.template : (spec.template = {});
  const meta = isRecord(tpl.metadata) ? tpl.metadata : (tpl.metadata = {});
  const labels = isRecord(meta.labels) ? meta.labels : (meta.labels = {});
  const name = job.metadata.name ?? '';
  const uid = job.metadata.uid ?? '';
  for (const k of [JOB_LABELS.legacyJobName, JOB_LABELS.jobName]) if (!(k in labels)) labels[k] = name;
  for (const k of [JOB_LABELS.legacyControllerUid, JOB_LABELS.controllerUid]) if (!(k in labels)) labels[k] = uid;
  const sel = isRecord(spec.selector) ? spec.selector : (spec.selector = {});
  const ml = isRecord(sel.matchLabels) ? sel.matchLabels : (sel.matchLabels = {});
  if (!(JOB_LABELS.controllerUid in ml)) ml[JOB_LABELS.controllerUid] = uid;
}

export const jobStrategy = buildStrategy(R.jobs, {
  defaults: (j) => defaultJob(j),
  prepareForCreate(job) {
    const spec = isRecord(job.spec) ? job.spec : undefined;
    if (spec && (spec.manualSelector === undefined || spec.manualSelector === null)) spec.manualSelector = false;
    if (spec?.manualSelector !== true) generateSelector(job);
  },
  validate: validateJob,
  validateUpdate: validateJobUpdate,
  validateStatusUpdate: (j, old) => [...validateObjectMetaUpdate(j.metadata, old.metadata, { namespaced: true }), ...validateJobStatus(j)],
  status: { initial: () => ({}) },
  generation: true,
  statusKeepsMeta: ['labels'],
});
