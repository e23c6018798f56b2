// A follower that watches the Lease, on a FakeClock against the fake apiserver: it takes over exactly at
// (time it saw the last renewal) + leaseDuration (+ EXPIRY_SLACK_MS), not at a later poll; it takes a
// released Lease at once; a live leader's renewals keep it waiting; the loser of a race keeps counting from
// the winner's writes; a dropped watch is resumed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '@kemu/base';
import { formatMicroTime } from '@kemu/api';
import { leaseContest, until } from '../testing/lease-contest.ts';
import { EXPIRY_SLACK_MS, LeaderElector } from './leaderelection.ts';
import { LeaseLock, type LeaderElectionRecord, type LockFollower, type ObservedRecord, type ResourceLock } from './leaselock.ts';

// Kubernetes' defaults: a poll comes every 2–4.4 s, so an attempt exactly at expiry is not a poll.
const TIMING = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

const t = leaseContest();
const { lease } = t;
let clock: FakeClock;
const candidates: Candidate[] = [];

beforeEach(() => {
  clock = new FakeClock();
});
afterEach(() => {
  candidates.splice(0);
});

/** Wraps the real LeaseLock: counts requests in flight and remembers what the watch delivered. */
class CountingLock implements ResourceLock {
  inflight = 0;
  readonly watched: (ObservedRecord | undefined)[] = [];
  constructor(private readonly inner: LeaseLock) {}
  private async count<T>(p: Promise<T>): Promise<T> {
    this.inflight++;
    try {
      return await p;
    } finally {
      this.inflight--;
    }
  }
  get(signal?: AbortSignal) {
    return this.count(this.inner.get(signal));
  }
  create(r: LeaderElectionRecord, signal?: AbortSignal) {
    return this.count(this.inner.create(r, signal));
  }
  update(r: LeaderElectionRecord, signal?: AbortSignal) {
    return this.count(this.inner.update(r, signal));
  }
  follow(onChange: (o: ObservedRecord | undefined) => void, opts: Parameters<LeaseLock['follow']>[1]): LockFollower {
    return this.inner.follow((o) => {
      this.watched.push(o);
      onChange(o);
    }, opts);
  }
  recordEvent(m: string): void {
    this.inner.recordEvent(m);
  }
  identity(): string {
    return this.inner.identity();
  }
  describe(): string {
    return this.inner.describe();
  }
}

interface Candidate {
  id: string;
  elector: LeaderElector;
  lock: CountingLock;
  ctrl: AbortController;
  done: Promise<void>;
  finished: boolean;
}

function candidate(name: string, releaseOnCancel = false): Candidate {
  const seat = t.contender(name);
  const id = seat.identity;
  const lock = new CountingLock(new LeaseLock(seat.client, seat.namespace, seat.name, id));
  const elector = new LeaderElector({
    ...seat,
    ...TIMING,
    releaseOnCancel,
    clock,
    lock,
    callbacks: { onStartedLeading() {}, onStoppedLeading() {} },
  });
  const ctrl = t.controller();
  const c: Candidate = { id, elector, lock, ctrl, done: elector.run(ctrl.signal), finished: false };
  void c.done.then(() => (c.finished = true));
  candidates.push(c);
  return c;
}

/** Every candidate is idle: no request in flight, each waiting on the clock, every follower's watch caught up. */
async function settle(sleepers: number): Promise<void> {
  const caughtUp = () => {
    const rv = lease()?.metadata.resourceVersion;
    return candidates.every((c) => c.finished || c.elector.isLeader() || c.lock.watched.at(-1)?.resourceVersion === rv);
  };
  const end = Date.now() + 10_000;
  for (let stable = 0; stable < 3; ) {
    if (Date.now() > end) throw new Error(`not settled: ${clock.pendingSleepers()} sleepers, want ${sleepers}`);
    await new Promise((r) => setImmediate(r));
    const idle = candidates.every((c) => c.lock.inflight === 0) && clock.pendingSleepers() === sleepers && caughtUp();
    stable = idle ? stable + 1 : 0;
  }
}

/** Advances the fake clock step by step, letting the candidates' real HTTP round trips finish in between. */
async function advance(ms: number, sleepers: number, step = 500): Promise<void> {
  for (let left = ms; left > 0; left -= step) {
    await clock.advance(Math.min(step, left));
    await settle(sleepers);
  }
}

async function following(c: Candidate, leader: Candidate): Promise<void> {
  await until('the follower sees the leader', () => c.elector.getLeader() === leader.id);
  await until('the follower watches', () => c.lock.watched.some((o) => o?.record.holderIdentity === leader.id));
}

describe('a watching follower (FakeClock)', () => {
  it('takes over exactly at its observation of the last renewal + leaseDuration, not a poll later', async () => {
    const a = candidate('a');
    await until('a leads', () => a.elector.isLeader());
    const b = candidate('b');
    await following(b, a);
    await settle(2); // a's renew sleep, b's wait
    await advance(6_100, 2); // three renewals by a, each seen by b through the watch
    const lastRenew = lease()?.spec?.renewTime;
    expect(lastRenew).toBe(formatMicroTime(clock.now() - 100));
    const seenAt = clock.now() - 100;
    expect(b.lock.watched.at(-1)?.record.renewTime).toBe(seenAt);
    // "SIGKILL": a stops without releasing.
    a.ctrl.abort();
    await a.done;
    await settle(1);
    const expiry = seenAt + TIMING.leaseDurationMs + EXPIRY_SLACK_MS;
    await advance(expiry - 1 - clock.now(), 1, 700);
    expect(lease()?.spec?.holderIdentity).toBe(a.id);
    expect(b.elector.isLeader()).toBe(false);
    await clock.advance(1);
    await until('b leads', () => b.elector.isLeader());
    expect(clock.now()).toBe(expiry);
    expect(lease()?.spec).toMatchObject({ holderIdentity: b.id, acquireTime: formatMicroTime(expiry), leaseTransitions: 1 });
  });

  it('takes a released Lease at once, without waiting for a poll', async () => {
    const a = candidate('a', true);
    await until('a leads', () => a.elector.isLeader());
    const b = candidate('b');
    await following(b, a);
    await settle(2);
    await advance(2_000, 2);
    const t = clock.now();
    a.ctrl.abort(); // "SIGTERM": a releases
    await a.done;
    await until('b leads', () => b.elector.isLeader()); // the clock does not move
    expect(clock.now()).toBe(t);
    expect(b.lock.watched.some((o) => o?.record.holderIdentity === '')).toBe(true);
    expect(lease()?.spec).toMatchObject({ holderIdentity: b.id, acquireTime: formatMicroTime(t), leaseTransitions: 1 });
  });

  it("keeps waiting while the leader renews, however long, and resumes a dropped watch", async () => {
    const a = candidate('a');
    await until('a leads', () => a.elector.isLeader());
    const b = candidate('b');
    await following(b, a);
    await settle(2);
    await advance(20_000, 2);
    const watches = () => t.fake.requests.filter((r) => r.includes('watch=true')).length;
    const before = watches();
    t.fake.dropWatches();
    await until('the watch resumes', () => watches() > before);
    await advance(20_000, 2);
    expect(b.elector.isLeader()).toBe(false);
    expect(lease()?.spec).toMatchObject({ holderIdentity: a.id, leaseTransitions: 0, renewTime: formatMicroTime(clock.now()) });
    expect(b.lock.watched.at(-1)?.record.renewTime).toBe(clock.now());
    // The follower waited on renewals seen through the watch, so its polls stayed at about one per 2–4.4 s.
    const gets = t.fake.requests.filter((r) => r === 'GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager').length;
    expect(gets).toBeLessThan(2 + 40_000 / TIMING.retryPeriodMs + 2);
  });

  it('of two followers racing at expiry one wins; the loser counts from the winner\'s writes', async () => {
    const a = candidate('a');
    await until('a leads', () => a.elector.isLeader());
    const b = candidate('b');
    const c = candidate('c');
    await following(b, a);
    await following(c, a);
    await settle(3);
    const seenAt = clock.now();
    a.ctrl.abort();
    await a.done;
    await settle(2);
    await advance(seenAt + TIMING.leaseDurationMs + EXPIRY_SLACK_MS - clock.now(), 2, 800);
    const [winner, loser] = b.elector.isLeader() ? [b, c] : [c, b];
    expect(winner.elector.isLeader()).toBe(true);
    expect(loser.elector.isLeader()).toBe(false);
    expect(lease()?.spec).toMatchObject({ holderIdentity: winner.id, leaseTransitions: 1 });
    await advance(4_000, 2);
    const lastRenew = clock.now();
    expect(lease()?.spec?.renewTime).toBe(formatMicroTime(lastRenew));
    winner.ctrl.abort();
    await winner.done;
    await settle(1);
    const expiry = lastRenew + TIMING.leaseDurationMs + EXPIRY_SLACK_MS;
    await advance(expiry - 1 - clock.now(), 1, 700);
    expect(loser.elector.isLeader()).toBe(false);
    await clock.advance(1);
    await until('the loser leads', () => loser.elector.isLeader());
    expect(lease()?.spec).toMatchObject({ holderIdentity: loser.id, acquireTime: formatMicroTime(expiry), leaseTransitions: 2 });
  });
});
