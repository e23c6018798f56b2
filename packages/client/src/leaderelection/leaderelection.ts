// Leader election with client-go's semantics (tools/leaderelection):
// - Acquire: try every retryPeriod (jittered by JitterFactor 1.2). A record held by someone else is taken
//   over only when it has not changed for a whole lease duration *as observed on the local clock* (the
//   time we last saw it change, never the remote renewTime), so clock skew between hosts cannot cause two
//   leaders. A released record (empty holderIdentity) can be taken at once. Take-over is a PUT with the
//   resourceVersion read, so of two racers one gets 409 and stays a follower.
// - Renew: every retryPeriod. If no renewal succeeds within renewDeadline, leadership is lost: the
//   signal given to onStartedLeading aborts at once and onStoppedLeading runs.
// - releaseOnCancel: when run()'s signal aborts while leading, the record is rewritten with an empty
//   holder and a 1 s lease duration, so a follower can take over at once.
// - Following (beyond client-go, same semantics): a follower also watches the lock, so it learns of each
//   change the moment it is written rather than up to a poll later, and it schedules its next attempt at
//   min(next jittered poll, observedTime + leaseDuration + EXPIRY_SLACK_MS) — or at once after a release or
//   deletion. The poll remains the fallback whenever the watch is down.
// - Fencing (beyond client-go): fence() is the WriteFence for the component's REST clients. A term begins
//   when the Lease is acquired and ends when it is lost or released; within it a write may start only
//   before renewDeadline has passed (on the monotonic clock) since the start of the last successful
//   renewal, and carries the holder and leaseTransitions in X-Kemu-Lease for the apiserver to check.
import { randomUUID } from 'node:crypto';
import { realClock, silentLogger, type Clock, type Logger } from '@kemu/base';
import type { EventRecorder } from '../events.ts';
import type { RestClient } from '../rest.ts';
import type { WriteFence } from '../write-fence.ts';
import { clockTimeout } from './clock-timeout.ts';
import { LeaseFence } from './fence.ts';
import { LeaseLock, olderVersion, type LeaderElectionRecord, type LockFollower, type ObservedRecord, type ResourceLock } from './leaselock.ts';

export const JITTER_FACTOR = 1.2;
/** A follower's expiry-time attempt comes this much after the computed expiry, so timer rounding never wakes it a hair early. */
export const EXPIRY_SLACK_MS = 10;

export interface LeaderCallbacks {
  /** Runs once leadership is acquired; `signal` aborts the moment it is lost or released. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Runs when leadership ends (only after it had been acquired). */
  onStoppedLeading(): void;
  /** Runs whenever the observed leader changes (including to ourselves). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig {
  client: RestClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  releaseOnCancel?: boolean;
  callbacks: LeaderCallbacks;
  clock?: Clock;
  logger?: Logger;
  eventRecorder?: EventRecorder;
  /** A lock other than the Lease (extra; tests). */
  lock?: ResourceLock;
  /** healthCheck() tolerance past the lease duration (client-go's HealthzAdaptor timeout; default 20 s). */
  healthToleranceMs?: number;
}

/** `<hostname>_<uuid>`, as kube-controller-manager and kube-scheduler name themselves. */
export function leaderIdentity(hostname: string): string {
  return `${hostname}_${randomUUID()}`;
}

export class LeaderElector {
  private readonly cfg: LeaderElectionConfig;
  private readonly lock: ResourceLock;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly plainLog: Logger;
  private readonly healthToleranceMs: number;
  private observed: LeaderElectionRecord | undefined;
  private observedRaw = '';
  private observedTime = 0;
  private observedRV: string | undefined;
  private reportedLeader = '';
  private leading = false;
  // What the last acquire attempt decided on: the record it judged (raw) and whether it chose to wait for
  // that record to expire. A record that changed since, or a judged one reaching expiry, earns an attempt
  // before the next poll; an attempt that tried and lost (409) waits for news (watch) or the poll.
  private judgedRaw = '';
  private judgedWait = false;
  /** Set by the watch when the lock object was deleted: attempt (create) at once. */
  private goneSeen = false;
  /** Aborted to wake the follower's wait when the watch brings news. */
  private wake: AbortController | undefined;
  private follower: LockFollower | undefined;
  private lastWatchedAt = 0;
  private readonly writeFence: LeaseFence;
  /** Monotonic ms when the last successful acquire/renew attempt started (the fence counts from it). */
  private lastSuccessStart = 0;
  private readonly monotonic: () => number;

  constructor(cfg: LeaderElectionConfig) {
    if (cfg.leaseDurationMs <= cfg.renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
    if (cfg.renewDeadlineMs <= JITTER_FACTOR * cfg.retryPeriodMs) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
    if (cfg.leaseDurationMs < 1) throw new Error('leaseDuration must be greater than zero');
    if (cfg.renewDeadlineMs < 1) throw new Error('renewDeadline must be greater than zero');
    if (cfg.retryPeriodMs < 1) throw new Error('retryPeriod must be greater than zero');
    if (!cfg.callbacks?.onStartedLeading) throw new Error('OnStartedLeading callback must not be nil');
    if (!cfg.callbacks?.onStoppedLeading) throw new Error('OnStoppedLeading callback must not be nil');
    if (!cfg.identity) throw new Error('Lock identity is empty');
    this.cfg = cfg;
    this.clock = cfg.clock ?? realClock;
    // client-go writes its lease milestones with klog.Infof (bare messages naming the lease); the rest of its
    // lines carry the lease as a value.
    this.plainLog = cfg.logger ?? silentLogger();
    this.log = this.plainLog.child({ lease: `${cfg.namespace}/${cfg.name}` });
    this.lock = cfg.lock ?? new LeaseLock(cfg.client, cfg.namespace, cfg.name, cfg.identity, cfg.eventRecorder);
    this.healthToleranceMs = cfg.healthToleranceMs ?? 20_000;
    // The fence measures on a monotonic clock, so a wall-clock step cannot stretch a term; an injected clock is used as is.
    const mono = cfg.clock ? () => this.clock.now() : () => performance.now();
    this.monotonic = mono;
    this.writeFence = new LeaseFence(cfg.namespace, cfg.name, cfg.renewDeadlineMs, mono);
  }

  /** The write fence for this candidate's component clients (RestClient.fenceWrites). */
  fence(): WriteFence {
    return this.writeFence;
  }

  /** Acquires, then renews until leadership is lost or the signal aborts (releasing if configured). */
  async run(signal: AbortSignal): Promise<void> {
    if (!(await this.acquire(signal))) return;
    const leadingCtrl = new AbortController();
    const onCancel = () => leadingCtrl.abort(signal.reason);
    signal.addEventListener('abort', onCancel, { once: true });
    this.leading = true;
    this.fenceRenewed();
    this.plainLog.info(`successfully acquired lease ${this.lock.describe()}`);
    this.lock.recordEvent('became leader');
    Promise.resolve()
      .then(() => this.cfg.callbacks.onStartedLeading(leadingCtrl.signal))
      .catch((e: unknown) => this.log.error({ err: String(e) }, 'onStartedLeading failed'));
    try {
      await this.renew(signal);
    } finally {
      signal.removeEventListener('abort', onCancel);
      this.leading = false;
      this.writeFence.end(signal.aborted ? 'stopped leading' : 'failed to renew');
      leadingCtrl.abort(new Error('leadership lost'));
      if (signal.aborted && this.cfg.releaseOnCancel) await this.release();
      try {
        this.cfg.callbacks.onStoppedLeading();
      } catch (e) {
        this.log.error({ err: String(e) }, 'onStoppedLeading failed');
      }
    }
  }

  /** True while this candidate holds the lease (as last observed). */
  isLeader(): boolean {
    return this.leading && this.observed?.holderIdentity === this.cfg.identity;
  }

  /** The holder last observed ("" when none). */
  getLeader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  /** client-go's HealthzAdaptor: unhealthy only when leading and the lease is overdue by more than the tolerance. */
  healthCheck(): boolean {
    if (!this.isLeader()) return true;
    return this.clock.now() - this.observedTime <= this.cfg.leaseDurationMs + this.healthToleranceMs;
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.plainLog.info(`attempting to acquire leader lease ${this.lock.describe()}...`);
    const following = new AbortController();
    // One listener for the whole wait (no AbortSignal.any per sleep: this loop runs for the process's life).
    const onAbort = () => {
      following.abort();
      this.wake?.abort();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (this.lock.follow) {
      // Late events from a stream being torn down (we just won) must not touch the record we lead with.
      this.follower = this.lock.follow((o) => void (following.signal.aborted || this.onWatched(o)), { clock: this.clock, logger: this.log });
      this.lastWatchedAt = this.clock.now();
      void this.follower.run(following.signal);
    }
    try {
      for (;;) {
        if (signal.aborted) return false;
        this.goneSeen = false;
        const t = clockTimeout(this.clock, this.cfg.renewDeadlineMs, signal);
        const ok = await this.tryAcquireOrRenew(t.signal);
        t.cancel();
        if (ok && !signal.aborted) return true;
        const pollAt = this.clock.now() + this.cfg.retryPeriodMs * (1 + Math.random() * JITTER_FACTOR);
        for (;;) {
          if (signal.aborted) return false;
          const wait = this.nextAttemptAt(pollAt) - this.clock.now();
          if (wait <= 0) break;
          const wake = new AbortController();
          this.wake = wake;
          try {
            await this.clock.sleep(wait, wake.signal);
          } catch {
            if (signal.aborted) return false;
          } finally {
            this.wake = undefined;
          }
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      following.abort();
      this.follower = undefined;
    }
  }

  /** When the follower should try next: the poll, or earlier when the observed record allows a take-over. */
  private nextAttemptAt(pollAt: number): number {
    if (this.goneSeen) return this.clock.now();
    const o = this.observed;
    if (!o || o.holderIdentity === this.cfg.identity) return pollAt;
    if (this.observedRaw === this.judgedRaw && !this.judgedWait) return pollAt;
    const at = o.holderIdentity === '' ? this.observedTime : this.observedTime + this.leaseMs() + EXPIRY_SLACK_MS;
    return Math.min(pollAt, at);
  }

  /** A version from the watch: a change is observed now (on our clock), and the follower re-plans. */
  private onWatched(o: ObservedRecord | undefined): void {
    if (this.leading) return;
    this.lastWatchedAt = this.clock.now();
    if (!o) {
      this.goneSeen = true;
    } else {
      if (olderVersion(o.resourceVersion, this.observedRV) || o.raw === this.observedRaw) return;
      this.setObserved(o.record, o.raw, o.resourceVersion);
    }
    this.wake?.abort();
  }

  private async renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const deadline = this.clock.now() + this.cfg.renewDeadlineMs;
      const t = clockTimeout(this.clock, this.cfg.renewDeadlineMs, signal);
      let ok = false;
      try {
        for (;;) {
          ok = await this.tryAcquireOrRenew(t.signal);
          if (ok) this.fenceRenewed();
          if (ok || t.signal.aborted) break;
          const left = deadline - this.clock.now();
          if (left <= 0) break;
          await this.clock.sleep(Math.min(this.cfg.retryPeriodMs, left), t.signal).catch(() => undefined);
          if (t.signal.aborted) break;
        }
      } finally {
        t.cancel();
      }
      if (signal.aborted) return;
      if (!ok) {
        this.plainLog.info(`failed to renew lease ${this.lock.describe()}: timed out waiting for the condition`);
        return;
      }
      try {
        await this.clock.sleep(this.cfg.retryPeriodMs, signal);
      } catch {
        return;
      }
    }
  }

  /** One attempt, as client-go's tryAcquireOrRenew (never throws), noting when a successful one started. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const started = this.monotonic();
    const ok = await this.tryAcquireOrRenewOnce(signal);
    if (ok) this.lastSuccessStart = started;
    return ok;
  }

  /** A renewal (or the acquisition) succeeded: the fence's term starts or extends from when it started. */
  private fenceRenewed(): void {
    const o = this.observed;
    if (o?.holderIdentity !== this.cfg.identity) return;
    this.writeFence.renewed(o.holderIdentity, o.leaderTransitions, this.lastSuccessStart);
  }

  private async tryAcquireOrRenewOnce(signal: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const desired: LeaderElectionRecord = {
      holderIdentity: this.cfg.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.cfg.leaseDurationMs / 1000)),
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 0,
    };

    // Fast path: the leader renews optimistically from what it wrote last, without a GET.
    if (this.isLeader() && this.observed && this.isLeaseValid(now)) {
      desired.acquireTime = this.observed.acquireTime;
      desired.leaderTransitions = this.observed.leaderTransitions;
      try {
        const got = await this.lock.update(desired, signal);
        this.setObserved(got.record, got.raw, got.resourceVersion);
        return true;
      } catch (e) {
        this.log.debug({ err: String(e) }, 'optimistic renewal failed, falling back to a read');
        if (signal.aborted) return false;
      }
    }

    let current;
    this.judgedRaw = this.observedRaw;
    this.judgedWait = false;
    try {
      current = await this.lock.get(signal);
    } catch (e) {
      this.log.info({ err: String(e) }, `error retrieving resource lock ${this.lock.describe()}`);
      return false;
    }
    if (!current) {
      try {
        const got = await this.lock.create(desired, signal);
        this.setObserved(got.record, got.raw, got.resourceVersion);
        return true;
      } catch (e) {
        this.log.info({ err: String(e) }, 'error initially creating leader election record');
        return false;
      }
    }
    // A read from a replica behind what the watch already delivered: acting on it could only 409.
    if (olderVersion(current.resourceVersion, this.observedRV)) {
      this.log.debug('read an older lock version than already observed');
      return false;
    }

    // The record changed since we last looked: remember when, on our clock.
    if (current.raw !== this.observedRaw) {
      this.setObserved(current.record, current.raw, current.resourceVersion);
      // A leader is renewing but the watch did not bring it for two renew periods: presume the stream dead.
      if (this.follower && current.record.holderIdentity !== '' && this.clock.now() - this.lastWatchedAt > 2 * JITTER_FACTOR * this.cfg.retryPeriodMs) {
        this.lastWatchedAt = this.clock.now();
        this.follower.restart();
      }
    }
    this.judgedRaw = current.raw;
    const old = current.record;
    const isSelf = old.holderIdentity === this.cfg.identity;
    if (old.holderIdentity !== '' && !isSelf && this.isLeaseValid(now)) {
      this.log.debug({ holder: old.holderIdentity }, 'lock is held and has not yet expired');
      this.judgedWait = true;
      return false;
    }
    if (isSelf) {
      desired.acquireTime = old.acquireTime;
      desired.leaderTransitions = old.leaderTransitions;
    } else {
      desired.leaderTransitions = old.leaderTransitions + 1;
    }
    try {
      const got = await this.lock.update(desired, signal);
      this.setObserved(got.record, got.raw, got.resourceVersion);
      return true;
    } catch (e) {
      // Typically 409: another candidate won the race. observedTime stays what it was (we saw no new record);
      // the watch (or the next poll) brings the winner's record.
      this.log.info({ err: String(e) }, 'failed to update lock');
      return false;
    }
  }

  /** The observed record is still within its lease duration, measured from when we saw it change. */
  private isLeaseValid(now: number): boolean {
    return this.observedTime + this.leaseMs() > now;
  }

  /** The observed record's lease duration (client-go uses the record's, not our own). */
  private leaseMs(): number {
    const secs = this.observed?.leaseDurationSeconds ?? 0;
    return secs > 0 ? secs * 1000 : this.cfg.leaseDurationMs;
  }

  private setObserved(record: LeaderElectionRecord, raw: string, resourceVersion?: string): void {
    this.observed = record;
    this.observedRaw = raw;
    this.observedRV = resourceVersion;
    this.observedTime = this.clock.now();
    if (record.holderIdentity !== this.reportedLeader) {
      this.reportedLeader = record.holderIdentity;
      if (record.holderIdentity !== '' && this.cfg.callbacks.onNewLeader) {
        const who = record.holderIdentity;
        const cb = this.cfg.callbacks.onNewLeader;
        queueMicrotask(() => {
          try {
            cb(who);
          } catch (e) {
            this.log.error({ err: String(e) }, 'onNewLeader failed');
          }
        });
      }
    }
  }

  /** Gives the lease up (holder "", 1 s duration) so a follower can take it at once. */
  private async release(): Promise<void> {
    if (this.observed?.holderIdentity !== this.cfg.identity) return;
    const now = this.clock.now();
    const record: LeaderElectionRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaderTransitions: this.observed.leaderTransitions,
    };
    // Bounded by the lease duration, not the renew deadline: on a loaded machine a PUT can outlast the renew
    // deadline, and a release that gives up leaves followers waiting out the whole lease. Past the duration
    // the release no longer matters (and its resourceVersion keeps it from overwriting a new holder).
    const t = clockTimeout(this.clock, this.cfg.leaseDurationMs, new AbortController().signal);
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          const got = await this.lock.update(record, t.signal);
          this.setObserved(got.record, got.raw, got.resourceVersion);
          this.plainLog.info(`released lease ${this.lock.describe()}`);
          return;
        } catch (e) {
          // An in-flight renewal may have landed after our last read: re-read once and retry if still ours.
          const cur = await this.lock.get(t.signal).catch(() => undefined);
          if (cur?.record.holderIdentity !== this.cfg.identity) {
            this.log.info({ err: String(e) }, 'failed to release lock');
            return;
          }
        }
      }
    } finally {
      t.cancel();
    }
  }
}
