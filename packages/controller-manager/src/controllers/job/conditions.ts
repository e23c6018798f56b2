// Job conditions and the reasons and messages Kubernetes' job controller writes (pkg/controller/job and
// k8s.io/api/batch/v1 constants).
import { formatTime, type Job, type JobCondition } from '@kemu/api';

export interface Verdict {
  /** The interim condition (FailureTarget or SuccessCriteriaMet) and then the final one (Failed or Complete). */
  success: boolean;
  reason: string;
  message: string;
}

export const BACKOFF_LIMIT_EXCEEDED: Omit<Verdict, 'success'> = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
export const DEADLINE_EXCEEDED: Omit<Verdict, 'success'> = { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
export const MAX_FAILED_INDEXES_EXCEEDED: Omit<Verdict, 'success'> = {
  reason: 'MaxFailedIndexesExceeded',
  message: 'Job has exceeded the specified maximal number of failed indexes',
};
export const FAILED_INDEXES: Omit<Verdict, 'success'> = { reason: 'FailedIndexes', message: 'Job has failed indexes' };
export const COMPLETIONS_REACHED: Omit<Verdict, 'success'> = { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };

export function findCondition(job: Job, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/** Finished: Complete or Failed is True. */
export function isJobFinished(job: Job): boolean {
  return findCondition(job, 'Complete') !== undefined || findCondition(job, 'Failed') !== undefined;
}

/** The interim verdict recorded in status (FailureTarget / SuccessCriteriaMet), if any. */
export function recordedVerdict(job: Job): Verdict | undefined {
  const f = findCondition(job, 'FailureTarget');
  if (f) return { success: false, reason: f.reason ?? '', message: f.message ?? '' };
  const s = findCondition(job, 'SuccessCriteriaMet');
  if (s) return { success: true, reason: s.reason ?? '', message: s.message ?? '' };
  return undefined;
}

/** Sets (or updates) a condition, keeping lastTransitionTime when the status does not change. */
export function setCondition(conditions: JobCondition[], type: string, status: 'True' | 'False', reason: string, message: string, now: number): JobCondition[] {
  const t = formatTime(now);
  const cur = conditions.find((c) => c.type === type);
  if (cur) {
    if (cur.status === status && cur.reason === reason && cur.message === message) return conditions;
    return conditions.map((c) => (c.type === type ? { ...c, status, reason, message, lastProbeTime: t, lastTransitionTime: cur.status === status ? (c.lastTransitionTime ?? t) : t } : c));
  }
  return [...conditions, { type, status, lastProbeTime: t, lastTransitionTime: t, reason, message }];
}
