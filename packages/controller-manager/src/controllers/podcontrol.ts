// Creating and deleting pods on behalf of an owner (Kubernetes' RealPodControl), with the owner's events,
// and slowStartBatch: calls go out in batches of 1, 2, 4, … so a failing request (quota, a terminating
// namespace) costs one call instead of hundreds.
import { R, StatusError, type KubeObject, type OwnerReference, type Pod, type PodTemplateSpec } from '@kemu/api';
import type { RestClient, EventRecorder } from '@kemu/client';

export const SLOW_START_INITIAL_BATCH = 1;

export function controllerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** The pod a template describes, owned by ref, with a generated name "<owner>-xxxxx". */
export function podFromTemplate(template: PodTemplateSpec, namespace: string, ownerName: string, ref: OwnerReference): Pod {
  const meta = template.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${ownerName}-`,
      namespace,
      ownerReferences: [ref],
    },
    spec: structuredClone(template.spec),
  };
  if (meta.labels) pod.metadata.labels = { ...meta.labels };
  if (meta.annotations) pod.metadata.annotations = { ...meta.annotations };
  if (meta.finalizers) pod.metadata.finalizers = [...meta.finalizers];
  return pod;
}

export class PodControl {
  constructor(
    private readonly client: RestClient,
    private readonly recorder: EventRecorder,
  ) {}

  async createPod(owner: KubeObject, template: PodTemplateSpec, ref: OwnerReference): Promise<Pod> {
    const ns = owner.metadata.namespace ?? '';
    const pod = podFromTemplate(template, ns, owner.metadata.name ?? '', ref);
    try {
      const created = await this.client.create<Pod>(R.pods, ns, pod);
      this.recorder.event(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name ?? ''}`);
      return created;
    } catch (e) {
      this.recorder.event(owner, 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
      throw e;
    }
  }

  async deletePod(owner: KubeObject, pod: Pod): Promise<void> {
    const ns = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    try {
      // The uid precondition keeps us from deleting a same-named successor we have never seen.
      await this.client.delete(R.pods, ns, name, { preconditions: { uid: pod.metadata.uid } });
      this.recorder.event(owner, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    } catch (e) {
      this.recorder.event(owner, 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
      throw e;
    }
  }
}

/**
 * Did a failed write certainly not happen? A Status below 500 (or 503/429: refused before any work) means
 * the server rejected it; anything else (a dropped connection, a timeout, a 500) may have been applied.
 */
export function definitelyNotApplied(e: unknown): boolean {
  return e instanceof StatusError && (e.code < 500 || e.code === 503) && e.code !== 408;
}

/**
 * Calls fn count times in batches growing 1, 2, 4, … (capped by what is left); stops after the first
 * batch with an error. Returns how many calls succeeded and the first error.
 */
export async function slowStartBatch(
  count: number,
  initialBatch: number,
  fn: () => Promise<unknown>,
): Promise<{ successes: number; failures: unknown[]; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  let batch = Math.min(remaining, initialBatch);
  while (batch > 0) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason);
    successes += results.filter((r) => r.status === 'fulfilled').length;
    if (failures.length > 0) return { successes, failures, error: failures[0] };
    remaining -= batch;
    batch = Math.min(2 * batch, remaining);
  }
  return { successes, failures: [] };
}
