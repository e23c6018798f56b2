// cronjob-controller (Kubernetes' cronjob_controllerv2): for each CronJob, keeps status.active in step with its
// Jobs, creates the Job of the most recent missed schedule time (named <cronjob>-<minutes since epoch>)
// unless too late (startingDeadlineSeconds), suspended or forbidden by concurrencyPolicy, replaces running
// Jobs under Replace, trims finished Jobs to the history limits, and requeues itself for the next time.
// Time comes from ctx.clock, so tests drive schedules with a fake clock.
import {
  CRONJOB_SCHEDULED_TIMESTAMP,
  R,
  formatTime,
  parseCronSchedule,
  parseTime,
  timeZoneError,
  type CronJob,
  type CronSchedule,
  type Job,
  type ObjectReference,
} from '@kemu/api';
import { isAlreadyExists, isNotFound, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';
import { controllerRef } from './podcontrol.ts';
import { CONTROLLER_UID_INDEX, ensureControllerIndex, getControllerOf } from './pods.ts';

/** Beyond this many missed start times the controller warns (Kubernetes' "too many missed start times"). */
export const MAX_MISSED_START_TIMES = 100;
/** How many missed times are counted at most (for the warning's figure). */
const COUNT_CAP = 10_000;
const API_VERSION = 'batch/v1';
const KIND = 'CronJob';
/** Requeue a little after the next scheduled time, as Kubernetes' nextScheduleTimeDuration adds 100ms. */
const NEXT_SLACK_MS = 100;

const key = (ns: string | undefined, name: string | undefined) => `${ns ?? ''}/${name ?? ''}`;

function finishedType(job: Job): 'Complete' | 'Failed' | undefined {
  for (const c of job.status?.conditions ?? []) if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  return undefined;
}

/** RFC 1123Z as Go prints it: "Mon, 02 Jan 2006 15:04:05 +0000". */
function rfc1123z(d: Date): string {
  return d.toUTCString().replace('GMT', '+0000');
}

/** The Job name for a scheduled time: <cronjob>-<minutes since the epoch> (getJobName / getTimeHashInMinutes). */
export function jobNameFor(cronJobName: string, scheduled: Date): string {
  return `${cronJobName}-${Math.floor(scheduled.getTime() / 60_000)}`;
}

/** RFC 3339 of t in zone tz, with its offset (the scheduled-timestamp annotation). */
function inZone(t: Date, tz: string | undefined): string {
  if (!tz) return formatTime(t.getTime());
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(t)
      .map((p) => [p.type, p.value]),
  );
  const local = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offMin = Math.round((local - Math.floor(t.getTime() / 1000) * 1000) / 60_000);
  if (offMin === 0) return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}Z`;
  const sign = offMin < 0 ? '-' : '+';
  const abs = Math.abs(offMin);
  const off = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${off}`;
}

export class CronJobController implements Controller {
  readonly name = 'cronjob-controller';
  private readonly cjInformer: SharedInformer<CronJob>;
  private readonly jobInformer: SharedInformer<Job>;
  private readonly worker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.cjInformer = ctx.informers.informerFor<CronJob>(R.cronjobs);
    this.jobInformer = ctx.informers.informerFor<Job>(R.jobs);
    ensureControllerIndex(this.jobInformer);
    this.worker = new KeyedWorker(ctx, { name: 'cronjob', workers: ctx.options['concurrent-cronjob-syncs'], sync: (k) => this.sync(k) }).waitFor(
      this.cjInformer,
      this.jobInformer,
    );
    this.cjInformer.addEventHandler({
      onAdd: (cj) => this.worker.enqueue(cj),
      onUpdate: (_o, cj) => this.worker.enqueue(cj),
      onDelete: (obj) => this.worker.enqueue(obj),
    });
    const jobChanged = (j: Job) => {
      const ref = getControllerOf(j);
      if (ref?.kind === KIND) this.worker.add(key(j.metadata.namespace, ref.name));
    };
    this.jobInformer.addEventHandler({ onAdd: jobChanged, onUpdate: (_o, j) => jobChanged(j), onDelete: (obj) => jobChanged(unwrapDeleted(obj)) });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  async sync(cjKey: string): Promise<void> {
    const cached = this.cjInformer.store.get(cjKey);
    if (!cached) return;
    const cj = structuredClone(cached);
    const jobs = this.jobInformer.store.byIndex(CONTROLLER_UID_INDEX, cj.metadata.uid ?? '');
    const status = structuredClone(cj.status ?? {});
    let changed = await this.reconcileActive(cj, jobs, status);
    const requeue = await this.schedule(cj, jobs, status);
    if (requeue.changed) changed = true;
    if (changed) {
      if (!status.active?.length) delete status.active;
      try {
        await this.ctx.client.updateStatus<CronJob>(R.cronjobs, cj.metadata.namespace, { ...cj, status });
      } catch (e) {
        if (!isNotFound(e)) throw e;
        return;
      }
    }
    if (!cj.metadata.deletionTimestamp) await this.cleanupFinished(cj, jobs);
    if (requeue.afterMs !== undefined) this.worker.addAfter(cjKey, requeue.afterMs);
  }

  /** status.active: drop finished or missing Jobs, add running ones it forgot; lastSuccessfulTime. */
  private async reconcileActive(cj: CronJob, jobs: Job[], status: NonNullable<CronJob['status']>): Promise<boolean> {
    let changed = false;
    const active = status.active ?? [];
    const inActive = (uid: string | undefined) => active.some((r) => r.uid === uid);
    for (const j of jobs) {
      const done = finishedType(j);
      if (!done && !inActive(j.metadata.uid)) {
        // A running Job the status does not list: it was created and the status write lost, or by hand.
        const scheduled = j.metadata.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP];
        if (scheduled === undefined) this.ctx.recorder.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${j.metadata.name ?? ''}`);
        active.push(jobRef(j));
        changed = true;
      } else if (done && inActive(j.metadata.uid)) {
        this.ctx.recorder.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata.name ?? ''}, condition: ${done}`);
        active.splice(
          active.findIndex((r) => r.uid === j.metadata.uid),
          1,
        );
        changed = true;
      }
      if (done === 'Complete' && j.status?.completionTime) {
        const t = parseTime(j.status.completionTime);
        if (Number.isNaN(parseTime(status.lastSuccessfulTime)) || t > parseTime(status.lastSuccessfulTime)) {
          status.lastSuccessfulTime = j.status.completionTime;
          changed = true;
        }
      }
    }
    // Listed but not in the cache: ask the server before dropping it.
    for (const ref of [...active]) {
      if (jobs.some((j) => j.metadata.uid === ref.uid)) continue;
      try {
        const j = await this.ctx.client.get<Job>(R.jobs, ref.namespace, ref.name ?? '');
        if (j.metadata.uid === ref.uid) continue;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      this.ctx.recorder.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name ?? ''}`);
      active.splice(active.indexOf(ref), 1);
      changed = true;
    }
    status.active = active;
    return changed;
  }

  private async schedule(cj: CronJob, jobs: Job[], status: NonNullable<CronJob['status']>): Promise<{ changed: boolean; afterMs?: number }> {
    if (cj.metadata.deletionTimestamp) return { changed: false };
    const tz = cj.spec.timeZone;
    if (tz !== undefined) {
      const err = timeZoneError(tz);
      if (err) {
        this.ctx.recorder.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${JSON.stringify(tz)}: ${err}`);
        return { changed: false };
      }
    }
    if (cj.spec.suspend) return { changed: false };
    let sched: CronSchedule;
    try {
      sched = parseCronSchedule(cj.spec.schedule, tz);
    } catch (e) {
      this.ctx.recorder.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(cj.spec.schedule)} : ${(e as Error).message}`);
      return { changed: false };
    }
    const now = new Date(this.ctx.clock.now());
    const untilNext = () => Math.max(0, sched.next(now).getTime() - now.getTime()) + NEXT_SLACK_MS;
    const scheduled = this.mostRecentScheduleTime(cj, sched, now);
    if (!scheduled) return { changed: false, afterMs: untilNext() };
    const sds = cj.spec.startingDeadlineSeconds;
    if (sds !== undefined && scheduled.getTime() + sds * 1000 < now.getTime()) {
      this.ctx.recorder.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return { changed: false, afterMs: untilNext() };
    }
    const name = jobNameFor(cj.metadata.name ?? '', scheduled);
    const active = status.active ?? [];
    if (active.some((r) => r.name === name) || parseTime(status.lastScheduleTime) === scheduled.getTime()) return { changed: false, afterMs: untilNext() };
    const policy = cj.spec.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && active.length > 0) {
      this.ctx.recorder.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return { changed: false, afterMs: untilNext() };
    }
    if (policy === 'Replace') {
      for (const ref of [...active]) {
        const j = jobs.find((x) => x.metadata.uid === ref.uid);
        if (!j) continue;
        await this.deleteJob(cj, j);
        active.splice(active.indexOf(ref), 1);
      }
    }
    const job = this.jobFromTemplate(cj, name, scheduled);
    let created: Job;
    try {
      created = await this.ctx.client.create<Job>(R.jobs, cj.metadata.namespace, job);
      this.ctx.recorder.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name ?? ''}`);
    } catch (e) {
      if (isAlreadyExists(e)) {
        // Created by us before (the status write was lost): adopt it into the status if it is ours.
        const existing = await this.ctx.client.get<Job>(R.jobs, cj.metadata.namespace, name);
        if (getControllerOf(existing)?.uid !== cj.metadata.uid) return { changed: false, afterMs: untilNext() };
        created = existing;
      } else {
        this.ctx.recorder.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${(e as Error).message}`);
        throw e;
      }
    }
    if (!finishedType(created) && !active.some((r) => r.uid === created.metadata.uid)) active.push(jobRef(created));
    status.active = active;
    status.lastScheduleTime = formatTime(scheduled.getTime());
    return { changed: true, afterMs: untilNext() };
  }

  /** The latest schedule time in (earliest, now], warning when more than 100 were missed. */
  private mostRecentScheduleTime(cj: CronJob, sched: CronSchedule, now: Date): Date | undefined {
    let earliest = parseTime(cj.status?.lastScheduleTime);
    if (Number.isNaN(earliest)) earliest = parseTime(cj.metadata.creationTimestamp);
    const sds = cj.spec.startingDeadlineSeconds;
    if (sds !== undefined) earliest = Math.max(earliest, now.getTime() - sds * 1000);
    if (earliest > now.getTime()) return undefined;
    const { count, last } = sched.between(new Date(earliest), now, COUNT_CAP);
    if (count > MAX_MISSED_START_TIMES)
      this.ctx.recorder.event(cj, 'Warning', 'TooManyMissedTimes', `too many missed start times: ${count}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
    return last;
  }

  private jobFromTemplate(cj: CronJob, name: string, scheduled: Date): Job {
    const tmeta = cj.spec.jobTemplate.metadata ?? {};
    return {
      apiVersion: API_VERSION,
      kind: 'Job',
      metadata: {
        name,
        namespace: cj.metadata.namespace,
        ...(tmeta.labels ? { labels: { ...tmeta.labels } } : {}),
        annotations: { ...tmeta.annotations, [CRONJOB_SCHEDULED_TIMESTAMP]: inZone(scheduled, cj.spec.timeZone) },
        ownerReferences: [controllerRef(cj, API_VERSION, KIND)],
      },
      spec: structuredClone(cj.spec.jobTemplate.spec),
    };
  }

  private async deleteJob(cj: CronJob, job: Job): Promise<void> {
    try {
      await this.ctx.client.delete(R.jobs, job.metadata.namespace, job.metadata.name ?? '', { propagationPolicy: 'Background' });
    } catch (e) {
      if (isNotFound(e)) return;
      this.ctx.recorder.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${(e as Error).message}`);
      throw e;
    }
    this.ctx.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name ?? ''}`);
  }

  /** Keeps the newest successfulJobsHistoryLimit Complete and failedJobsHistoryLimit Failed Jobs. */
  private async cleanupFinished(cj: CronJob, jobs: Job[]): Promise<void> {
    const byStart = (a: Job, b: Job) => (parseTime(a.status?.startTime) || 0) - (parseTime(b.status?.startTime) || 0);
    const trim = async (type: 'Complete' | 'Failed', limit: number | undefined) => {
      if (limit === undefined) return;
      const done = jobs.filter((j) => finishedType(j) === type && !j.metadata.deletionTimestamp).sort(byStart);
      for (const j of done.slice(0, Math.max(0, done.length - limit))) await this.deleteJob(cj, j);
    };
    await trim('Complete', cj.spec.successfulJobsHistoryLimit);
    await trim('Failed', cj.spec.failedJobsHistoryLimit);
  }
}

function jobRef(j: Job): ObjectReference {
  return { kind: 'Job', namespace: j.metadata.namespace, name: j.metadata.name, uid: j.metadata.uid, apiVersion: API_VERSION, resourceVersion: j.metadata.resourceVersion };
}

export const cronJobDescriptor: ControllerDescriptor = {
  name: 'cronjob-controller',
  serviceAccountName: 'cronjob-controller',
  aliases: ['cronjob'],
  enabledByDefault: true,
  create: (ctx) => new CronJobController(ctx),
};
