// job-controller: runs a Job's pods until enough succeed, or it fails (backoffLimit, backoffLimitPerIndex,
// activeDeadlineSeconds, podFailurePolicy), in NonIndexed or Indexed mode, honouring suspend and successPolicy.
//
// Finished pods are counted exactly once, even across a controller-manager failover, by Kubernetes' tracking
// with the batch.kubernetes.io/job-tracking finalizer: every pod is created with it; a finished pod's UID (or,
// for Indexed Jobs, its index in completedIndexes) is first written to the Job's status as uncounted, then
// the pod's finalizer is removed, and only then is the UID moved from uncountedTerminatedPods to the
// succeeded/failed counters. A controller that dies between two steps leaves a state the next one resumes.
//
// A verdict is written first as an interim condition (SuccessCriteriaMet or FailureTarget); remaining pods
// are deleted, and the final Complete or Failed follows once none is left, as Kubernetes 1.32 does.
import { R, formatTime, labelSelectorAsSelector, parseTime, type Job, type JobCondition, type JobStatus, type ParsedSelector, type Pod } from '@kemu/api';
import { isNotFound, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../../controller.ts';
import { KeyedWorker } from '../base.ts';
import { Expectations } from '../expectations.ts';
import { PodControl, SLOW_START_INITIAL_BATCH, controllerRef, definitelyNotApplied, slowStartBatch } from '../podcontrol.ts';
import { claimCandidates, ensureControllerIndex, getControllerOf, isPodActive, isPodReady } from '../pods.ts';
import { claimObjects, recheckOwner } from '../refmanager.ts';
import { JOB_TRACKING_FINALIZER } from '@kemu/api';
import { formatIndexes, parseIndexes } from './indexes.ts';
import { completionIndex, hasTrackingFinalizer, isFailed, isFinished, isSucceeded, jobPod } from './pods.ts';
import { matchPodFailurePolicy } from './pod-failure-policy.ts';
import {
  BACKOFF_LIMIT_EXCEEDED,
  COMPLETIONS_REACHED,
  DEADLINE_EXCEEDED,
  FAILED_INDEXES,
  MAX_FAILED_INDEXES_EXCEEDED,
  findCondition,
  isJobFinished,
  recordedVerdict,
  setCondition,
  type Verdict,
} from './conditions.ts';

const API_VERSION = 'batch/v1';
const KIND = 'Job';
const JOB_CONTROLLER_NAME = 'kubernetes.io/job-controller';
/** Kubernetes' DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 360_000;
/** At most this many creations or deletions per sync (Kubernetes' MaxPodCreateDeletePerSync). */
const MAX_CREATE_DELETE = 500;
/** Pod events of one Job within this period make one sync (Kubernetes' syncJobBatchPeriod). */
export const SYNC_JOB_BATCH_PERIOD_MS = 1000;

export interface JobControllerOptions {
  /** The first pod-failure back-off (doubling per consecutive failure up to maxBackoffMs). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Pod events are batched per Job over this period (default SYNC_JOB_BATCH_PERIOD_MS). */
  batchPeriodMs?: number;
}

const jobKey = (ns: string | undefined, name: string | undefined) => `${ns ?? ''}/${name ?? ''}`;

function jobSelector(job: Job): ParsedSelector | undefined {
  try {
    const sel = job.spec.selector ? labelSelectorAsSelector(job.spec.selector) : undefined;
    return sel && !sel.nothing && sel.requirements.length > 0 ? sel : undefined;
  } catch {
    return undefined;
  }
}

/** Failures since the last success and when the last one happened (Kubernetes' backoffRecord), per Job. */
interface BackoffRecord {
  failures: number;
  lastFailure: number;
  counted: Set<string>;
}

export class JobController implements Controller {
  readonly name = 'job-controller';
  readonly expectations: Expectations;
  private readonly jobInformer: SharedInformer<Job>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly worker: KeyedWorker;
  private readonly orphans: KeyedWorker;
  private readonly podControl: PodControl;
  /** UIDs of pods whose finalizer removal we sent and have not yet seen (Kubernetes' finalizer expectations). */
  private readonly removing = new Set<string>();
  private readonly backoff = new Map<string, BackoffRecord>();
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly batchPeriodMs: number;
  /**
   * The Job as our last status write left it, with the resourceVersions it superseded: while the cache still
   * shows one of those, the next sync starts from this copy instead of conflicting on a stale one.
   */
  private readonly written = new Map<string, { stale: Set<string>; job: Job }>();

  constructor(
    private readonly ctx: ControllerContext,
    opts: JobControllerOptions = {},
  ) {
    this.backoffMs = opts.backoffMs ?? POD_FAILURE_BACKOFF_MS;
    this.maxBackoffMs = opts.maxBackoffMs ?? MAX_POD_FAILURE_BACKOFF_MS;
    this.batchPeriodMs = opts.batchPeriodMs ?? SYNC_JOB_BATCH_PERIOD_MS;
    this.expectations = new Expectations(ctx.clock);
    this.podControl = new PodControl(ctx.client, ctx.recorder);
    this.jobInformer = ctx.informers.informerFor<Job>(R.jobs);
    this.podInformer = ctx.informers.informerFor<Pod>(R.pods);
    ensureControllerIndex(this.podInformer);
    this.worker = new KeyedWorker(ctx, { name: 'job', workers: ctx.options['concurrent-job-syncs'], sync: (k) => this.sync(k) }).waitFor(
      this.jobInformer,
      this.podInformer,
    );
    this.orphans = new KeyedWorker(ctx, { name: 'job_orphan_pod', workers: 1, sync: (k) => this.syncOrphan(k) }).waitFor(this.jobInformer, this.podInformer);
    this.jobInformer.addEventHandler({
      onAdd: (j) => this.worker.enqueue(j),
      onUpdate: (_o, j) => this.worker.enqueue(j),
      onDelete: (obj) => {
        const j = unwrapDeleted(obj);
        const k = jobKey(j.metadata.namespace, j.metadata.name);
        this.expectations.delete(k);
        this.backoff.delete(k);
        this.written.delete(k);
        this.worker.enqueue(obj);
      },
    });
    this.podInformer.addEventHandler({
      onAdd: (p) => this.podChanged(p, true),
      onUpdate: (_o, p) => this.podChanged(p, false),
      onDelete: (obj) => this.podDeleted(unwrapDeleted(obj)),
    });
  }

  async run(): Promise<void> {
    await Promise.all([this.worker.run(), this.orphans.run()]);
  }

  private ownerOf(pod: Pod): Job | undefined {
    const ref = getControllerOf(pod);
    if (!ref || ref.kind !== KIND || !ref.apiVersion.startsWith('batch/')) return undefined;
    const job = this.jobInformer.store.get(jobKey(pod.metadata.namespace, ref.name));
    return job && job.metadata.uid === ref.uid ? job : undefined;
  }

  private podChanged(pod: Pod, added: boolean): void {
    if (!hasTrackingFinalizer(pod)) this.removing.delete(pod.metadata.uid ?? '');
    const job = this.ownerOf(pod);
    if (!job) {
      if (hasTrackingFinalizer(pod) && getControllerOf(pod)?.kind === KIND) this.orphans.add(jobKey(pod.metadata.namespace, pod.metadata.name));
      return;
    }
    const k = jobKey(job.metadata.namespace, job.metadata.name);
    if (added) this.expectations.creationObserved(k);
    if (pod.metadata.deletionTimestamp) this.expectations.deletionObserved(k, jobKey(pod.metadata.namespace, pod.metadata.name));
    this.enqueueBatched(k);
  }

  /** One sync for the pod events of a Job within the batch period (the queue keeps one entry per key). */
  private enqueueBatched(k: string): void {
    if (this.batchPeriodMs > 0) this.worker.addAfter(k, this.batchPeriodMs);
    else this.worker.add(k);
  }

  private podDeleted(pod: Pod): void {
    this.removing.delete(pod.metadata.uid ?? '');
    const job = this.ownerOf(pod);
    if (!job) return;
    const k = jobKey(job.metadata.namespace, job.metadata.name);
    this.expectations.deletionObserved(k, jobKey(pod.metadata.namespace, pod.metadata.name));
    this.enqueueBatched(k);
  }

  /** A pod that still has the finalizer but whose Job is gone (deleted, or replaced by a namesake): let it go. */
  private async syncOrphan(podKey: string): Promise<void> {
    const pod = this.podInformer.store.get(podKey);
    if (!pod || !hasTrackingFinalizer(pod) || this.ownerOf(pod)) return;
    const ref = getControllerOf(pod);
    if (ref) {
      try {
        const job = await this.ctx.client.get<Job>(R.jobs, pod.metadata.namespace, ref.name);
        if (job.metadata.uid === ref.uid) return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    await this.removeFinalizer(pod);
  }

  private async removeFinalizer(pod: Pod): Promise<boolean> {
    const rest = (pod.metadata.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER);
    try {
      this.removing.add(pod.metadata.uid ?? '');
      await this.ctx.client.patch(R.pods, pod.metadata.namespace, pod.metadata.name ?? '', { metadata: { uid: pod.metadata.uid, finalizers: rest.length > 0 ? rest : null } }, 'merge');
      return true;
    } catch (e) {
      this.removing.delete(pod.metadata.uid ?? '');
      if (isNotFound(e)) return true;
      throw e;
    }
  }

  private async removeFinalizers(pods: Pod[]): Promise<Set<string>> {
    const done = new Set<string>();
    const results = await Promise.allSettled(
      pods.map(async (p) => {
        if (await this.removeFinalizer(p)) done.add(p.metadata.uid ?? '');
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return done;
  }

  private podsOf(job: Job, selector: ParsedSelector): Promise<Pod[]> {
    return claimObjects(claimCandidates(this.podInformer.store, job), {
      client: this.ctx.client,
      owner: job,
      ref: controllerRef(job, API_VERSION, KIND),
      selector,
      resource: R.pods,
      canAdopt: recheckOwner(this.ctx.client, R.jobs, job),
    });
  }

  async sync(key: string): Promise<void> {
    const cached = this.jobInformer.store.get(key);
    if (!cached) {
      this.expectations.delete(key);
      return;
    }
    const mine = this.written.get(key);
    const fresh = mine && mine.stale.has(cached.metadata.resourceVersion ?? '') ? mine.job : cached;
    if (mine && fresh === cached) this.written.delete(key);
    let job = structuredClone(fresh);
    if (job.spec.managedBy && job.spec.managedBy !== JOB_CONTROLLER_NAME) return;
    const selector = jobSelector(job);
    if (!selector) return;
    // Read the expectations before the pods, as Kubernetes' syncJob does: a creation observed while this sync
    // awaits would otherwise satisfy them although the pod list taken here lacks it (a duplicate index).
    const satisfied = this.expectations.satisfied(key);
    const pods = await this.podsOf(job, selector);
    if (isJobFinished(job)) {
      // Everything is counted: let the remaining pods go.
      await this.removeFinalizers(pods.filter((p) => hasTrackingFinalizer(p) && !this.removing.has(p.metadata.uid ?? '')));
      return;
    }
    const now = this.ctx.clock.now();
    const indexed = job.spec.completionMode === 'Indexed';
    const completions = job.spec.completions ?? undefined;
    const perIndex = indexed && job.spec.backoffLimitPerIndex !== undefined;
    const st: JobStatus = structuredClone(job.status ?? {});
    const uncountedSucceeded = new Set(st.uncountedTerminatedPods?.succeeded ?? []);
    const uncountedFailed = new Set(st.uncountedTerminatedPods?.failed ?? []);
    const succeededIdx = indexed ? parseIndexes(st.completedIndexes, completions ?? 0) : new Set<number>();
    const failedIdx = perIndex ? parseIndexes(st.failedIndexes, completions ?? 0) : new Set<number>();
    let verdict = recordedVerdict(job);
    let policyVerdict: Verdict | undefined;

    // 1. Finished pods still carrying the finalizer: record them as uncounted, then let them go.
    const release: Pod[] = [];
    let newFailures = 0;
    let lastFailure = 0;
    for (const p of pods) {
      const uid = p.metadata.uid ?? '';
      if (!hasTrackingFinalizer(p) || this.removing.has(uid)) continue;
      const ix = completionIndex(p);
      const validIndex = !indexed || (ix !== undefined && ix < (completions ?? 0));
      if (isSucceeded(p) && !uncountedFailed.has(uid)) {
        if (indexed) {
          if (validIndex && ix !== undefined && !failedIdx.has(ix)) succeededIdx.add(ix);
        } else uncountedSucceeded.add(uid);
        release.push(p);
      } else if (isFailed(p, job) || (verdict && !isSucceeded(p) && isFinished(p))) {
        const match = p.status?.phase === 'Failed' ? matchPodFailurePolicy(job, p) : undefined;
        release.push(p);
        if (match?.action === 'Ignore') continue;
        if (match?.action === 'FailJob') policyVerdict ??= { success: false, reason: 'PodFailurePolicy', message: match.message ?? '' };
        if (perIndex && validIndex && ix !== undefined) {
          const failures = Number(p.metadata.annotations?.['batch.kubernetes.io/job-index-failure-count'] ?? '0') + 1;
          if (match?.action === 'FailIndex' || failures > (job.spec.backoffLimitPerIndex ?? 0)) failedIdx.add(ix);
        }
        if (!uncountedFailed.has(uid)) {
          uncountedFailed.add(uid);
          newFailures++;
          lastFailure = Math.max(lastFailure, finishTime(p) ?? now);
        }
      }
    }
    this.noteFailures(key, newFailures, lastFailure, pods);

    const succeededNow = indexed ? succeededIdx.size : (st.succeeded ?? 0) + uncountedSucceeded.size;
    const failedNow = (st.failed ?? 0) + uncountedFailed.size;
    const active = pods.filter(isPodActive);
    const terminating = pods.filter((p) => p.metadata.deletionTimestamp && !isFinished(p));
    if (!job.spec.suspend && !st.startTime) st.startTime = formatTime(now);

    // 2. A verdict, once: FailureTarget or SuccessCriteriaMet.
    if (!verdict) verdict = policyVerdict ?? this.judge(job, st, { succeededNow, failedNow, active, succeededIdx, failedIdx, now });
    let conditions: JobCondition[] = st.conditions ?? [];
    if (verdict && !recordedVerdict(job)) conditions = setCondition(conditions, verdict.success ? 'SuccessCriteriaMet' : 'FailureTarget', 'True', verdict.reason, verdict.message, now);

    // 3. Persist the uncounted state, release the pods, then count them (the order that makes it exactly-once).
    const uncounted = (s: Set<string>, f: Set<string>) => ({ succeeded: [...s], failed: [...f] });
    const next: JobStatus = {
      ...st,
      conditions,
      active: active.length,
      ready: active.filter(isPodReady).length,
      terminating: terminating.length,
      uncountedTerminatedPods: uncounted(uncountedSucceeded, uncountedFailed),
    };
    if (indexed) {
      next.completedIndexes = formatIndexes(succeededIdx);
      next.succeeded = succeededIdx.size;
    }
    if (perIndex) next.failedIndexes = formatIndexes(failedIdx);
    if (next.conditions?.length === 0) delete next.conditions;
    job = await this.writeStatus(job, next);
    const released = await this.removeFinalizers(release);
    const stillHeld = new Set(pods.filter((p) => hasTrackingFinalizer(p) && !released.has(p.metadata.uid ?? '')).map((p) => p.metadata.uid));
    const counted = (s: Set<string>) => [...s].filter((uid) => !stillHeld.has(uid));
    const nowSucceeded = counted(uncountedSucceeded);
    const nowFailed = counted(uncountedFailed);
    if (nowSucceeded.length + nowFailed.length > 0) {
      const s2: JobStatus = structuredClone(job.status ?? {});
      if (!indexed) s2.succeeded = (s2.succeeded ?? 0) + nowSucceeded.length;
      s2.failed = (s2.failed ?? 0) + nowFailed.length;
      for (const u of nowSucceeded) uncountedSucceeded.delete(u);
      for (const u of nowFailed) uncountedFailed.delete(u);
      s2.uncountedTerminatedPods = uncounted(uncountedSucceeded, uncountedFailed);
      job = await this.writeStatus(job, s2);
    }

    // 4. With a verdict: no pod may keep running; the final condition once they are all gone and counted.
    if (verdict) {
      await this.deletePods(key, job, active);
      const left = pods.some((p) => hasTrackingFinalizer(p) && !released.has(p.metadata.uid ?? '') && !isFinished(p)) || active.length > 0;
      if (!left && uncountedSucceeded.size + uncountedFailed.size === 0) await this.finish(job, verdict, now);
      return;
    }

    // 5. Suspend / resume, the deadline timer, and the pods the Job still needs.
    if (job.spec.suspend) {
      await this.deletePods(key, job, active);
      await this.setSuspended(job, true, now);
      return;
    }
    if (findCondition(job, 'Suspended')) job = await this.setSuspended(job, false, now);
    const ads = job.spec.activeDeadlineSeconds;
    const started = parseTime(job.status?.startTime);
    if (ads !== undefined && !Number.isNaN(started)) this.worker.addAfter(key, Math.max(0, started + ads * 1000 - now) + 10);
    if (!satisfied) {
      this.worker.addAfter(key, this.expectations.msUntilExpired(key));
      return;
    }
    await this.manage(key, job, active, { succeededNow, succeededIdx, failedIdx, pods });
  }

  /** What the counts say now: a failure (backoff, deadline, failed indexes) or success, or nothing yet. */
  private judge(
    job: Job,
    st: JobStatus,
    c: { succeededNow: number; failedNow: number; active: Pod[]; succeededIdx: Set<number>; failedIdx: Set<number>; now: number },
  ): Verdict | undefined {
    const spec = job.spec;
    const restarts = spec.template.spec.restartPolicy === 'OnFailure' ? c.active.reduce((n, p) => n + restartCount(p), 0) : 0;
    if (!(spec.backoffLimitPerIndex !== undefined) && c.failedNow + restarts > (spec.backoffLimit ?? 6)) return { success: false, ...BACKOFF_LIMIT_EXCEEDED };
    const started = parseTime(st.startTime);
    if (spec.activeDeadlineSeconds !== undefined && !spec.suspend && !Number.isNaN(started) && c.now - started >= spec.activeDeadlineSeconds * 1000)
      return { success: false, ...DEADLINE_EXCEEDED };
    if (spec.maxFailedIndexes !== undefined && c.failedIdx.size > spec.maxFailedIndexes) return { success: false, ...MAX_FAILED_INDEXES_EXCEEDED };
    if (spec.completionMode === 'Indexed') {
      const completions = spec.completions ?? 0;
      for (const [i, rule] of (spec.successPolicy?.rules ?? []).entries()) if (successRuleMet(rule, c.succeededIdx, completions)) return { success: true, reason: 'SuccessPolicy', message: `Matched rules at index ${i}` };
      if (c.succeededIdx.size + c.failedIdx.size >= completions) return c.failedIdx.size > 0 ? { success: false, ...FAILED_INDEXES } : { success: true, ...COMPLETIONS_REACHED };
      return undefined;
    }
    if (spec.completions !== undefined && spec.completions !== null) return c.succeededNow >= spec.completions ? { success: true, ...COMPLETIONS_REACHED } : undefined;
    // A work queue: done when one pod has succeeded and none is left running.
    return c.succeededNow > 0 && c.active.length === 0 ? { success: true, ...COMPLETIONS_REACHED } : undefined;
  }

  private async finish(job: Job, verdict: Verdict, now: number): Promise<void> {
    const st: JobStatus = structuredClone(job.status ?? {});
    st.conditions = setCondition(st.conditions ?? [], verdict.success ? 'Complete' : 'Failed', 'True', verdict.reason, verdict.message, now);
    if (verdict.success) st.completionTime = formatTime(now);
    st.active = 0;
    st.ready = 0;
    st.terminating = 0;
    await this.writeStatus(job, st);
    if (verdict.success) this.ctx.recorder.event(job, 'Normal', 'Completed', 'Job completed');
    else this.ctx.recorder.event(job, 'Warning', verdict.reason, verdict.message);
  }

  private async setSuspended(job: Job, suspended: boolean, now: number): Promise<Job> {
    const cur = job.status?.conditions?.find((c) => c.type === 'Suspended');
    if (suspended ? cur?.status === 'True' : cur?.status !== 'True') return job;
    const st: JobStatus = structuredClone(job.status ?? {});
    st.conditions = suspended
      ? setCondition(st.conditions ?? [], 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)
      : setCondition(st.conditions ?? [], 'Suspended', 'False', 'JobResumed', 'Job resumed', now);
    // The deadline counts from the last resume.
    if (suspended) delete st.startTime;
    else st.startTime = formatTime(now);
    const out = await this.writeStatus(job, st);
    this.ctx.recorder.event(job, 'Normal', suspended ? 'Suspended' : 'Resumed', suspended ? 'Job suspended' : 'Job resumed');
    return out;
  }

  private async manage(
    key: string,
    job: Job,
    active: Pod[],
    c: { succeededNow: number; succeededIdx: Set<number>; failedIdx: Set<number>; pods: Pod[] },
  ): Promise<void> {
    const parallelism = job.spec.parallelism ?? 1;
    const completions = job.spec.completions ?? undefined;
    const indexed = job.spec.completionMode === 'Indexed';
    let want: number;
    if (completions === undefined) want = c.succeededNow > 0 ? active.length : parallelism;
    else want = Math.max(0, Math.min(parallelism, completions - c.succeededNow - c.failedIdx.size));

    // Surplus: pods of indexes already done or duplicated, then the newest beyond `want`.
    const surplus: Pod[] = [];
    let keep = active;
    if (indexed) {
      const seen = new Set<number>();
      keep = [];
      for (const p of active) {
        const ix = completionIndex(p);
        if (ix === undefined || ix >= (completions ?? 0) || c.succeededIdx.has(ix) || c.failedIdx.has(ix) || seen.has(ix)) surplus.push(p);
        else {
          seen.add(ix);
          keep.push(p);
        }
      }
    }
    if (keep.length > want) {
      const byAge = [...keep].sort((a, b) => notReadyFirst(a, b));
      surplus.push(...byAge.slice(0, keep.length - want));
      keep = keep.filter((p) => !surplus.includes(p));
    }
    if (surplus.length > 0) {
      await this.deletePods(key, job, surplus.slice(0, MAX_CREATE_DELETE));
      return;
    }
    const missing = Math.min(want - keep.length, MAX_CREATE_DELETE);
    if (missing <= 0) return;
    const wait = this.backoffRemaining(key);
    if (wait > 0) {
      this.worker.addAfter(key, wait);
      return;
    }
    let indexes: (number | undefined)[] = Array.from({ length: missing }, () => undefined);
    if (indexed) {
      const running = new Set(keep.map(completionIndex));
      indexes = [];
      for (let i = 0; i < (completions ?? 0) && indexes.length < missing; i++) if (!running.has(i) && !c.succeededIdx.has(i) && !c.failedIdx.has(i)) indexes.push(i);
    }
    if (indexes.length === 0) return;
    this.expectations.expectCreations(key, indexes.length);
    const ref = controllerRef(job, API_VERSION, KIND);
    const queue = [...indexes];
    const { successes, failures, error } = await slowStartBatch(indexes.length, SLOW_START_INITIAL_BATCH, async () => {
      const ix = queue.shift();
      const pod = jobPod(job, ref, ix, ix === undefined ? 0 : indexFailures(c.pods, ix));
      const ns = job.metadata.namespace ?? '';
      try {
        const created = await this.ctx.client.create<Pod>(R.pods, ns, pod);
        this.ctx.recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name ?? ''}`);
      } catch (e) {
        this.ctx.recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
        throw e;
      }
    });
    const unsent = indexes.length - successes - failures.length;
    const refused = failures.filter(definitelyNotApplied).length;
    if (unsent + refused > 0) this.expectations.lowerExpectations(key, unsent + refused, 0);
    if (failures.length > refused) this.expectations.expireWithin(key, 15_000);
    if (error !== undefined) throw error;
  }

  private async deletePods(key: string, job: Job, pods: Pod[]): Promise<void> {
    if (pods.length === 0) return;
    this.expectations.expectDeletions(
      key,
      pods.map((p) => jobKey(p.metadata.namespace, p.metadata.name)),
    );
    const results = await Promise.allSettled(pods.map((p) => this.podControl.deletePod(job, p)));
    results.forEach((r, i) => {
      const p = pods[i];
      if (r.status === 'rejected' && p && (isNotFound(r.reason) || definitelyNotApplied(r.reason))) this.expectations.deletionObserved(key, jobKey(p.metadata.namespace, p.metadata.name));
    });
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected' && !isNotFound(r.reason));
    if (failed) throw failed.reason;
  }

  private noteFailures(key: string, n: number, at: number, pods: Pod[]): void {
    const rec = this.backoff.get(key) ?? { failures: 0, lastFailure: 0, counted: new Set<string>() };
    // A success since the last failure resets the back-off.
    const succeededSince = pods.some((p) => isSucceeded(p) && (finishTime(p) ?? 0) > rec.lastFailure);
    if (succeededSince && n === 0) rec.failures = 0;
    if (n > 0) {
      rec.failures += n;
      rec.lastFailure = Math.max(rec.lastFailure, at);
    }
    this.backoff.set(key, rec);
  }

  private backoffRemaining(key: string): number {
    const rec = this.backoff.get(key);
    if (!rec || rec.failures === 0) return 0;
    const delay = Math.min(this.backoffMs * 2 ** (rec.failures - 1), this.maxBackoffMs);
    return Math.max(0, rec.lastFailure + delay - this.ctx.clock.now());
  }

  /** Writes status when it changed; returns the stored Job (conflicts requeue the sync). */
  private async writeStatus(job: Job, status: JobStatus): Promise<Job> {
    if (JSON.stringify(job.status ?? {}) === JSON.stringify(status)) return job;
    const next: Job = { ...job, status };
    const out = await this.ctx.client.updateStatus<Job>(R.jobs, job.metadata.namespace, next);
    const k = jobKey(job.metadata.namespace, job.metadata.name);
    const stale = new Set(this.written.get(k)?.stale ?? []);
    stale.add(job.metadata.resourceVersion ?? '');
    this.written.set(k, { stale, job: out });
    return out;
  }
}

function restartCount(p: Pod): number {
  return [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].reduce((n, cs) => n + (cs.restartCount ?? 0), 0);
}

/** When the pod finished: its last container's finishedAt, else its Ready condition's last change. */
function finishTime(p: Pod): number | undefined {
  let t: number | undefined;
  for (const cs of p.status?.containerStatuses ?? []) {
    const f = parseTime(cs.state?.terminated?.finishedAt);
    if (!Number.isNaN(f)) t = Math.max(t ?? 0, f);
  }
  return t;
}

/** Failures so far of an index: one more than the highest count among its failed pods. */
function indexFailures(pods: Pod[], ix: number): number {
  let n = 0;
  for (const p of pods) {
    if (completionIndex(p) !== ix || p.status?.phase !== 'Failed') continue;
    n = Math.max(n, Number(p.metadata.annotations?.['batch.kubernetes.io/job-index-failure-count'] ?? '0') + 1);
  }
  return n;
}

function successRuleMet(rule: { succeededIndexes?: string; succeededCount?: number }, succeeded: Set<number>, completions: number): boolean {
  const scope = rule.succeededIndexes !== undefined ? parseIndexes(rule.succeededIndexes, completions) : undefined;
  const hits = scope ? [...scope].filter((i) => succeeded.has(i)).length : succeeded.size;
  if (rule.succeededCount !== undefined) return hits >= rule.succeededCount;
  return scope !== undefined && hits === scope.size;
}

/** Deletion order for surplus pods: not yet running or ready first, then the newest. */
function notReadyFirst(a: Pod, b: Pod): number {
  const ra = isPodReady(a) ? 1 : 0;
  const rb = isPodReady(b) ? 1 : 0;
  if (ra !== rb) return ra - rb;
  return parseTime(b.metadata.creationTimestamp) - parseTime(a.metadata.creationTimestamp);
}

export const jobDescriptor: ControllerDescriptor = {
  name: 'job-controller',
  serviceAccountName: 'job-controller',
  aliases: ['job'],
  enabledByDefault: true,
  create: (ctx) => new JobController(ctx),
};
