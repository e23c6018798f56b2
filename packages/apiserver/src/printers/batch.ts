// kubectl get jobs / cronjobs (printJob, printCronJob), with the wide Containers, Images, Selector columns.
import type { KubeObject } from '@kemu/api';
import type { TablePrinter } from '../strategy/types.ts';
import { humanDuration, since } from './duration.ts';
import { ageCol, col, int, list, nameCol, obj, str, templateColumns } from './util.ts';

const WIDE = [col('Containers', 'string', 1), col('Images', 'string', 1), col('Selector', 'string', 1)];

function hasCondition(job: KubeObject, type: string): boolean {
  return list(obj(job.status).conditions).some((c) => c.type === type && c.status === 'True');
}

function jobStatus(job: KubeObject): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp) return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(job, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function completions(spec: Record<string, unknown>, succeeded: number): string {
  if (typeof spec.completions === 'number') return `${succeeded}/${spec.completions}`;
  const parallelism = int(spec.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(st: Record<string, unknown>, now: number): string {
  const start = str(st.startTime);
  if (!start) return '';
  const end = str(st.completionTime);
  return humanDuration((end ? Date.parse(end) : now) - Date.parse(start));
}

export const jobPrinter: TablePrinter = {
  columns: [nameCol, col('Status'), col('Completions'), col('Duration'), ageCol, ...WIDE],
  cells(job, now) {
    const spec = obj(job.spec);
    const st = obj(job.status);
    return [job.metadata.name ?? '', jobStatus(job), completions(spec, int(st.succeeded)), jobDuration(st, now), since(job.metadata.creationTimestamp, now), ...templateColumns(spec)];
  },
};

export const cronJobPrinter: TablePrinter = {
  columns: [nameCol, col('Schedule'), col('Timezone'), col('Suspend', 'boolean'), col('Active', 'integer'), col('Last Schedule'), ageCol, ...WIDE],
  cells(cj, now) {
    const spec = obj(cj.spec);
    const st = obj(cj.status);
    const last = str(st.lastScheduleTime);
    const suspend = typeof spec.suspend === 'boolean' ? (spec.suspend ? 'True' : 'False') : '<unset>';
    return [
      cj.metadata.name ?? '',
      str(spec.schedule),
      typeof spec.timeZone === 'string' ? spec.timeZone : '<none>',
      suspend,
      list(st.active).length,
      last ? since(last, now) : '<none>',
      since(cj.metadata.creationTimestamp, now),
      ...templateColumns(obj(obj(spec.jobTemplate).spec)),
    ];
  },
};
