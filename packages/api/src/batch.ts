// batch/v1 Job and CronJob, with the label, annotation and finalizer names the job controller shares with
// kubelets, kubectl and the API server.
import type { KubeObject, LabelSelector, ObjectMeta } from './meta.ts';
import type { ObjectReference, PodTemplateSpec } from './core.ts';

export interface PodFailurePolicyOnExitCodesRequirement {
  containerName?: string;
  operator: 'In' | 'NotIn';
  values: number[];
}

export interface PodFailurePolicyOnPodConditionsPattern {
  type: string;
  status: string;
}

export interface PodFailurePolicyRule {
  action: 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';
  onExitCodes?: PodFailurePolicyOnExitCodesRequirement;
  onPodConditions?: PodFailurePolicyOnPodConditionsPattern[];
}

export interface PodFailurePolicy {
  rules: PodFailurePolicyRule[];
}

export interface SuccessPolicyRule {
  succeededIndexes?: string;
  succeededCount?: number;
}

export interface SuccessPolicy {
  rules: SuccessPolicyRule[];
}

export interface JobSpec {
  parallelism?: number;
  completions?: number | null;
  activeDeadlineSeconds?: number;
  podFailurePolicy?: PodFailurePolicy;
  successPolicy?: SuccessPolicy;
  backoffLimit?: number;
  backoffLimitPerIndex?: number;
  maxFailedIndexes?: number;
  selector?: LabelSelector;
  manualSelector?: boolean;
  template: PodTemplateSpec;
  ttlSecondsAfterFinished?: number;
  completionMode?: 'NonIndexed' | 'Indexed';
  suspend?: boolean;
  podReplacementPolicy?: 'TerminatingOrFailed' | 'Failed';
  managedBy?: string;
}

export interface JobCondition {
  type: 'Complete' | 'Failed' | 'Suspended' | 'FailureTarget' | 'SuccessCriteriaMet' | string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface UncountedTerminatedPods {
  succeeded?: string[];
  failed?: string[];
}

export interface JobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  completedIndexes?: string;
  failedIndexes?: string;
  uncountedTerminatedPods?: UncountedTerminatedPods;
  ready?: number;
}

export interface Job extends KubeObject {
  spec: JobSpec;
  status?: JobStatus;
}

export interface JobTemplateSpec {
  metadata?: ObjectMeta;
  spec: JobSpec;
}

export interface CronJobSpec {
  schedule: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  suspend?: boolean;
  jobTemplate: JobTemplateSpec;
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}

export interface CronJobStatus {
  active?: ObjectReference[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

export interface CronJob extends KubeObject {
  spec: CronJobSpec;
  status?: CronJobStatus;
}

/** Labels and annotations of Job pods (k8s.io/api/batch/v1 types.go). */
export const JOB_LABELS = {
  controllerUid: 'batch.kubernetes.io/controller-uid',
  jobName: 'batch.kubernetes.io/job-name',
  legacyControllerUid: 'controller-uid',
  legacyJobName: 'job-name',
  completionIndex: 'batch.kubernetes.io/job-completion-index',
  indexFailureCount: 'batch.kubernetes.io/job-index-failure-count',
} as const;

/** The finalizer the job controller puts on its pods until it has counted them. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** The annotation a CronJob's Jobs carry: their scheduled time, RFC 3339. */
export const CRONJOB_SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
