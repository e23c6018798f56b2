// ttl-after-finished-controller: deletes a finished Job ttlSecondsAfterFinished after its Complete or Failed
// condition, with foreground propagation (its pods go first), as Kubernetes' ttlafterfinished controller. The
// Job is read again from the server before deleting, so a TTL just changed is honoured; the uid precondition
// keeps a namesake safe.
import { R, parseTime, type Job } from '@kemu/api';
import { isNotFound, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';

/** When the Job finished (its Complete/Failed condition's lastTransitionTime); undefined while running. */
export function jobFinishTime(job: Job): number | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') {
      const t = parseTime(c.lastTransitionTime);
      return Number.isNaN(t) ? undefined : t;
    }
  }
  return undefined;
}

/** Milliseconds until the Job's TTL expires (≤ 0: expired); undefined when it has no TTL or is not finished. */
function ttlRemaining(job: Job, now: number): number | undefined {
  const ttl = job.spec.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null || job.metadata.deletionTimestamp) return undefined;
  const finished = jobFinishTime(job);
  if (finished === undefined) return undefined;
  return finished + ttl * 1000 - now;
}

export class TTLAfterFinishedController implements Controller {
  readonly name = 'ttl-after-finished-controller';
  private readonly jobInformer: SharedInformer<Job>;
  private readonly worker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.jobInformer = ctx.informers.informerFor<Job>(R.jobs);
    this.worker = new KeyedWorker(ctx, {
      name: 'ttl_jobs_to_delete',
      workers: ctx.options['concurrent-ttl-after-finished-syncs'],
      sync: (k) => this.sync(k),
    }).waitFor(this.jobInformer);
    const consider = (j: Job) => {
      if (ttlRemaining(j, ctx.clock.now()) !== undefined) this.worker.enqueue(j);
    };
    this.jobInformer.addEventHandler({ onAdd: consider, onUpdate: (_o, j) => consider(j) });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  async sync(key: string): Promise<void> {
    const cached = this.jobInformer.store.get(key);
    if (!cached) return;
    const left = ttlRemaining(cached, this.ctx.clock.now());
    if (left === undefined) return;
    if (left > 0) {
      this.worker.addAfter(key, left);
      return;
    }
    // The cache may be stale: the TTL may have been changed or removed since.
    let fresh: Job;
    try {
      fresh = await this.ctx.client.get<Job>(R.jobs, cached.metadata.namespace, cached.metadata.name ?? '');
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    const freshLeft = ttlRemaining(fresh, this.ctx.clock.now());
    if (freshLeft === undefined) return;
    if (freshLeft > 0) {
      this.worker.addAfter(key, freshLeft);
      return;
    }
    this.ctx.logger.info({ job: key }, 'Cleaning up Job');
    try {
      await this.ctx.client.delete(R.jobs, fresh.metadata.namespace, fresh.metadata.name ?? '', {
        propagationPolicy: 'Foreground',
        preconditions: { uid: fresh.metadata.uid },
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

export const ttlAfterFinishedDescriptor: ControllerDescriptor = {
  name: 'ttl-after-finished-controller',
  serviceAccountName: 'ttl-after-finished-controller',
  aliases: ['ttl-after-finished'],
  enabledByDefault: true,
  create: (ctx) => new TTLAfterFinishedController(ctx),
};
