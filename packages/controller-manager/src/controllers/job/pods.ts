// What the job controller reads from and writes into its pods: the tracking finalizer, completion indexes
// (annotation, label, JOB_COMPLETION_INDEX, hostname <job>-<index>), and which pods count as finished.
import { JOB_LABELS, JOB_TRACKING_FINALIZER, type Job, type OwnerReference, type Pod } from '@kemu/api';
import { podFromTemplate } from '../podcontrol.ts';

export const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';

export function hasTrackingFinalizer(p: Pod): boolean {
  return (p.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

/** The pod's completion index from its annotation (then label); undefined when absent or invalid. */
export function completionIndex(p: Pod): number | undefined {
  const v = p.metadata.annotations?.[JOB_LABELS.completionIndex] ?? p.metadata.labels?.[JOB_LABELS.completionIndex];
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  return Number(v);
}

export function isSucceeded(p: Pod): boolean {
  return p.status?.phase === 'Succeeded';
}

/**
 * A failed pod: phase Failed, or (with podReplacementPolicy TerminatingOrFailed) being deleted before it
 * finished — Kubernetes counts such a pod as failed as soon as it is terminating.
 */
export function isFailed(p: Pod, job: Job): boolean {
  if (p.status?.phase === 'Failed') return true;
  if (job.spec.podReplacementPolicy === 'Failed') return false;
  return p.metadata.deletionTimestamp !== undefined && p.status?.phase !== 'Succeeded';
}

export function isFinished(p: Pod): boolean {
  return p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
}

/** The pod for one more completion (index for Indexed Jobs), carrying the tracking finalizer. */
export function jobPod(job: Job, ref: OwnerReference, index: number | undefined, indexFailures: number): Pod {
  const name = job.metadata.name ?? '';
  const pod = podFromTemplate(job.spec.template, job.metadata.namespace ?? '', name, ref);
  pod.metadata.finalizers = [...(pod.metadata.finalizers ?? []), JOB_TRACKING_FINALIZER];
  if (index === undefined) return pod;
  const ix = String(index);
  pod.metadata.generateName = `${name}-${ix}-`;
  pod.metadata.annotations = { ...pod.metadata.annotations, [JOB_LABELS.completionIndex]: ix };
  pod.metadata.labels = { ...pod.metadata.labels, [JOB_LABELS.completionIndex]: ix };
  if (job.spec.backoffLimitPerIndex !== undefined) pod.metadata.annotations[JOB_LABELS.indexFailureCount] = String(indexFailures);
  // A stable hostname per index, so pods of the index reach each other through a headless Service.
  if (!pod.spec.hostname) pod.spec.hostname = `${name}-${ix}`;
  const env = { name: COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${JOB_LABELS.completionIndex}']` } } };
  for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    if ((c.env ?? []).some((e) => e.name === COMPLETION_INDEX_ENV)) continue;
    c.env = [...(c.env ?? []), env];
  }
  return pod;
}
