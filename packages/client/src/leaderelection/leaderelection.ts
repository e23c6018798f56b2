// Leader election with client-go's semantics (tools/leaderelection):
// - Acquire: try every retryPeriod (jittered by JitterFactor 1.2). A record held by someone else is taken
//   over only when it has not changed for a whole lease duration *as observed on the local clock* (the
//   time we last saw it change, never the remote renewTime), so clock skew between hosts cannot cause two
//   leaders. A released record (empty holderIdentity) can be taken at once. Take-over is a PUT with the
//   resourceVersion read, so of two racers one gets 409 and stays a follower.
// - Renew: every retryPeriod. If no renewal succeeds within renewDeadline, leadership is lost: the
//   signal given to onStartedLeading aborts at once and onStoppedLeading runs.
// - releaseOnCancel: when run()'s signal aborts while leading, the record is rewritten with an empty
//   holder and a 1 s lease duration, so a follower takes over within about one retry period.
import { randomUUID } from 'node:crypto';
import { realClock, silentLogger, type Clock, type Logger } from '@kemu/base';
import type { EventRecorder } from '../events.ts';
import type { RestClient } from '../rest.ts';
import { LeaseLock, type LeaderElectionRecord, type ResourceLock } from './leaselock.ts';

export const JITTER_FACTOR = 1.2;

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

/** A signal that aborts after ms on the given clock, or when the parent aborts. */
function clockTimeout(clock: Clock, ms: number, parent: AbortSignal): { signal: AbortSignal; cancel(): void } {
  const ctrl = new AbortController();
  const timer = new AbortController();
  const onParent = () => ctrl.abort(parent.reason);
  if (parent.aborted) ctrl.abort(parent.reason);
  else parent.addEventListener('abort', onParent, { once: true });
  clock.sleep(ms, timer.signal).then(
    () => ctrl.abort(new Error(`timed out after ${ms}ms`)),
    () => undefined,
  );
  return {
    signal: ctrl.signal,
    cancel: () => {
      timer.abort();
      parent.removeEventListener('abort', onParent);
    },
  };
}

export class LeaderElector {
  private readonly cfg: LeaderElectionConfig;
  private readonly lock: ResourceLock;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly healthToleranceMs: number;
  private observed: LeaderElectionRecord | undefined;
  private observedRaw = '';
  private observedTime = 0;
  private reportedLeader = '';
  private leading = false;

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
    this.log = (cfg.logger ?? silentLogger()).child({ lease: `${cfg.namespace}/${cfg.name}` });
    this.lock = cfg.lock ?? new LeaseLock(cfg.client, cfg.namespace, cfg.name, cfg.identity, cfg.eventRecorder);
    this.healthToleranceMs = cfg.healthToleranceMs ?? 20_000;
  }

  /** Acquires, then renews until leadership is lost or the signal aborts (releasing if configured). */
  async run(signal: AbortSignal): Promise<void> {
    if (!(await this.acquire(signal))) return;
    const leadingCtrl = new AbortController();
    const onCancel = () => leadingCtrl.abort(signal.reason);
    signal.addEventListener('abort', onCancel, { once: true });
    this.leading = true;
    this.log.info({ identity: this.cfg.identity }, `successfully acquired lease ${this.lock.describe()}`);
    this.lock.recordEvent('became leader');
    Promise.resolve()
      .then(() => this.cfg.callbacks.onStartedLeading(leadingCtrl.signal))
      .catch((e: unknown) => this.log.error({ err: String(e) }, 'onStartedLeading failed'));
    try {
      await this.renew(signal);
    } finally {
      signal.removeEventListener('abort', onCancel);
      this.leading = false;
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
    this.log.info(`attempting to acquire leader lease ${this.lock.describe()}...`);
    for (;;) {
      if (signal.aborted) return false;
      const t = clockTimeout(this.clock, this.cfg.renewDeadlineMs, signal);
      const ok = await this.tryAcquireOrRenew(t.signal);
      t.cancel();
      if (ok && !signal.aborted) return true;
      const wait = this.cfg.retryPeriodMs * (1 + Math.random() * JITTER_FACTOR);
      try {
        await this.clock.sleep(wait, signal);
      } catch {
        return false;
      }
    }
  }

  private async renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const deadline = this.clock.now() + this.cfg.renewDeadlineMs;
      const t = clockTimeout(this.clock, this.cfg.renewDeadlineMs, signal);
      let ok = false;
      try {
        for (;;) {
          ok = await this.tryAcquireOrRenew(t.signal);
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
        this.log.info(`failed to renew lease ${this.lock.describe()}: timed out waiting for the condition`);
        return;
      }
      try {
        await this.clock.sleep(this.cfg.retryPeriodMs, signal);
      } catch {
        return;
      }
    }
  }

  /** One attempt, as client-go's tryAcquireOrRenew. Never throws. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
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
        this.setObserved(got.record, got.raw);
        return true;
      } catch (e) {
        this.log.debug({ err: String(e) }, 'optimistic renewal failed, falling back to a read');
        if (signal.aborted) return false;
      }
    }

    let current;
    try {
      current = await this.lock.get(signal);
    } catch (e) {
      this.log.info({ err: String(e) }, `error retrieving resource lock ${this.lock.describe()}`);
      return false;
    }
    if (!current) {
      try {
        const got = await this.lock.create(desired, signal);
        this.setObserved(got.record, got.raw);
        return true;
      } catch (e) {
        this.log.info({ err: String(e) }, 'error initially creating leader election record');
        return false;
      }
    }

    // The record changed since we last looked: remember when, on our clock.
    if (current.raw !== this.observedRaw) this.setObserved(current.record, current.raw);
    const old = current.record;
    const isSelf = old.holderIdentity === this.cfg.identity;
    if (old.holderIdentity !== '' && !isSelf && this.isLeaseValid(now)) {
      this.log.debug({ holder: old.holderIdentity }, 'lock is held and has not yet expired');
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
      this.setObserved(got.record, got.raw);
      return true;
    } catch (e) {
      this.log.info({ err: String(e) }, 'failed to update lock');
      return false;
    }
  }

  /** The observed record is still within its lease duration, measured from when we saw it change. */
  private isLeaseValid(now: number): boolean {
    const secs = this.observed?.leaseDurationSeconds ?? 0;
    const ms = secs > 0 ? secs * 1000 : this.cfg.leaseDurationMs;
    return this.observedTime + ms > now;
  }

  private setObserved(record: LeaderElectionRecord, raw: string): void {
    this.observed = record;
    this.observedRaw = raw;
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
    const t = clockTimeout(this.clock, this.cfg.renewDeadlineMs, new AbortController().signal);
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          const got = await this.lock.update(record, t.signal);
          this.setObserved(got.record, got.raw);
          this.log.info(`released lease ${this.lock.describe()}`);
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
