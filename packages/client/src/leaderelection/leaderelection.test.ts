import { describe, expect, it } from 'vitest';
import { FakeClock } from '@kemu/base';
import type { KubeObject } from '@kemu/api';
import { EventRecorder } from '../events.ts';
import { RestClient } from '../rest.ts';
import { LEASES, leaseContest, until } from '../testing/lease-contest.ts';
import { LeaderElector, leaderIdentity, type LeaderElectionConfig } from './leaderelection.ts';
import { MemoryLock } from '../testing/memory-lock.ts';

const TIMING = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };

const t = leaseContest();
const { lease } = t;

interface Candidate {
  id: string;
  elector: LeaderElector;
  ctrl: AbortController;
  done: Promise<void>;
  events: string[];
  leaderSignal?: AbortSignal;
}

function candidate(name: string, extra: Partial<LeaderElectionConfig> = {}): Candidate {
  const seat = t.contender(name);
  const id = seat.identity;
  const events: string[] = [];
  const c: Partial<Candidate> = { id, events };
  const elector = new LeaderElector({
    ...seat,
    ...TIMING,
    callbacks: {
      onStartedLeading: (s) => {
        events.push('started');
        c.leaderSignal = s;
      },
      onStoppedLeading: () => events.push('stopped'),
      onNewLeader: (who) => events.push(`leader ${who === id ? 'me' : 'other'}`),
    },
    ...extra,
  });
  const ctrl = t.controller();
  return Object.assign(c, { elector, ctrl, done: elector.run(ctrl.signal) }) as Candidate;
}

/** a leads and b follows it; then a stops without releasing ("SIGKILL"): how long after a's last renewal b leads. */
async function handoverAfterKill(): Promise<{ a: Candidate; b: Candidate; took: number }> {
  const a = candidate('a');
  await until('a leads', () => a.elector.isLeader());
  const b = candidate('b');
  await until('b sees a', () => b.elector.getLeader() === a.id);
  expect(b.elector.isLeader()).toBe(false);
  a.ctrl.abort();
  await a.done;
  const lastRenew = Date.now();
  await until('b leads', () => b.elector.isLeader(), 5_000);
  return { a, b, took: Date.now() - lastRenew };
}

describe('LeaderElector validation', () => {
  const base = { client: new RestClient({ server: 'http://127.0.0.1:1' }), namespace: 'ns', name: 'n', identity: 'me', callbacks: { onStartedLeading() {}, onStoppedLeading() {} } };
  it.each([
    [{ leaseDurationMs: 10, renewDeadlineMs: 10, retryPeriodMs: 1 }, 'leaseDuration must be greater than renewDeadline'],
    [{ leaseDurationMs: 15_000, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }, 'renewDeadline must be greater than retryPeriod*JitterFactor'],
    [{ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 0 }, 'retryPeriod must be greater than zero'],
  ])('%o', (timing, msg) => {
    expect(() => new LeaderElector({ ...base, ...timing })).toThrow(msg);
  });
  it('accepts the Kubernetes defaults', () => {
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 })).not.toThrow();
  });
  it('identity is <hostname>_<uuid>', () => {
    expect(leaderIdentity('node-1')).toMatch(/^node-1_[0-9a-f-]{36}$/);
  });
});

describe('LeaderElector against a fake Lease server', () => {
  it('creates the Lease, leads, renews, and emits a LeaderElection event', async () => {
    const client = t.closeAfter(new RestClient({ server: t.fake.url, qps: -1 }));
    const recorder = new EventRecorder(client, { component: 'kube-controller-manager' });
    const a = candidate('a', { eventRecorder: recorder });
    await until('leader', () => a.elector.isLeader());
    const l = lease();
    expect(l?.spec).toMatchObject({ holderIdentity: a.id, leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(l?.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(a.elector.getLeader()).toBe(a.id);
    expect(a.elector.healthCheck()).toBe(true);
    const firstRenew = l?.spec?.renewTime;
    await until('renewal', () => lease()?.spec?.renewTime !== firstRenew);
    expect(lease()?.spec?.acquireTime).toBe(l?.spec?.acquireTime);
    await recorder.flush();
    expect(t.fake.requests.filter((r) => r.startsWith('POST /api/v1/namespaces/kube-system/events'))).toHaveLength(1);
    await until('events', () => a.events.includes('started') && a.events.includes('leader me'));
  });

  it('a follower takes over a dead leader only after a full lease duration without change on its own clock', async () => {
    const { a, b, took } = await handoverAfterKill();
    expect(took).toBeGreaterThanOrEqual(TIMING.leaseDurationMs - TIMING.retryPeriodMs * 2);
    // The watch brought a's last renewal as it was written and b tried at its expiry, not a poll later.
    expect(took).toBeLessThan(TIMING.leaseDurationMs + 500);
    expect(lease()?.spec).toMatchObject({ holderIdentity: b.id, leaseTransitions: 1 });
    expect(a.events).toEqual(['leader me', 'started', 'stopped']);
  });

  it('releaseOnCancel hands over at once (the follower watches for the release)', async () => {
    const a = candidate('a', { releaseOnCancel: true });
    await until('a leads', () => a.elector.isLeader());
    const b = candidate('b');
    await until('b sees a', () => b.elector.getLeader() === a.id);
    const t0 = Date.now();
    a.ctrl.abort();
    expect(a.leaderSignal?.aborted).toBe(true); // at once, before the release finished
    await a.done;
    expect(lease()?.spec?.holderIdentity ?? '').not.toBe(a.id);
    await until('b leads', () => b.elector.isLeader(), 5_000);
    expect(Date.now() - t0).toBeLessThan(TIMING.leaseDurationMs / 2);
    expect(lease()?.spec).toMatchObject({ holderIdentity: b.id, leaseTransitions: 1, leaseDurationSeconds: 1 });
  });

  it('of two candidates racing for a released Lease exactly one wins; transitions count once', async () => {
    t.fake.put(LEASES, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'kube-controller-manager', namespace: 'kube-system' }, spec: { holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 4 } } as KubeObject);
    const a = candidate('a');
    const b = candidate('b');
    await until('both agree on one leader', () => a.elector.getLeader() !== '' && a.elector.getLeader() === b.elector.getLeader());
    expect([a, b].filter((c) => c.elector.isLeader())).toHaveLength(1);
    expect(lease()?.spec?.leaseTransitions).toBe(5);
    const puts = t.fake.requests.filter((r) => r.startsWith('PUT')).length;
    expect(puts).toBeGreaterThanOrEqual(1);
  });

  it('a held Lease with an old remote renewTime is still waited out on the local clock', async () => {
    t.fake.put(LEASES, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'kube-controller-manager', namespace: 'kube-system' },
      spec: { holderIdentity: 'ghost', leaseDurationSeconds: 1, renewTime: '2001-01-01T00:00:00.000000Z', acquireTime: '2001-01-01T00:00:00.000000Z', leaseTransitions: 2 },
    } as KubeObject);
    const t0 = Date.now();
    const a = candidate('a');
    await until('a leads', () => a.elector.isLeader(), 5_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(lease()?.spec).toMatchObject({ holderIdentity: a.id, leaseTransitions: 3 });
  });

  it('with every watch refused, the poll alone still hands over a dead leader', async () => {
    t.fake.intercept = (req, res) => {
      if (!req.url?.includes('watch=true')) return false;
      res.writeHead(500);
      res.end();
      return true;
    };
    const { b, took } = await handoverAfterKill();
    expect(took).toBeGreaterThanOrEqual(TIMING.leaseDurationMs - TIMING.retryPeriodMs * 2);
    expect(took).toBeLessThan(TIMING.leaseDurationMs + 4.4 * TIMING.retryPeriodMs + 1000);
    expect(lease()?.spec).toMatchObject({ holderIdentity: b.id, leaseTransitions: 1 });
  });

  it('a silent watch is reconnected once polls see renewals it did not bring', async () => {
    t.fake.silentWatches = true;
    const a = candidate('a');
    await until('a leads', () => a.elector.isLeader());
    const watches = () => t.fake.requests.filter((r) => r.includes('watch=true')).length;
    const before = watches();
    const b = candidate('b');
    await until('b sees a', () => b.elector.getLeader() === a.id);
    await until('b reconnects its watch', () => watches() >= before + 3, 8_000);
    expect(b.elector.isLeader()).toBe(false);
    expect(lease()?.spec?.holderIdentity).toBe(a.id);
  });

  it('a watch whose history was compacted lists again', async () => {
    const a = candidate('a');
    await until('a leads', () => a.elector.isLeader());
    const lists = () => t.fake.requests.filter((r) => r.includes('/leases?') && !r.includes('watch=true')).length;
    const b = candidate('b');
    await until('b watches', () => b.elector.getLeader() === a.id && lists() >= 2);
    // Refuse b's watches while a renews, then compact: b's resume version is gone → 410 → list.
    let refuse = true;
    t.fake.intercept = (req, res) => {
      if (!refuse || !req.url?.includes('watch=true')) return false;
      res.writeHead(500);
      res.end();
      return true;
    };
    const rv = lease()?.metadata.resourceVersion;
    t.fake.dropWatches();
    await until('a renews', () => lease()?.metadata.resourceVersion !== rv);
    t.fake.compact();
    const listed = lists();
    refuse = false;
    await until('b lists again', () => lists() > listed, 8_000);
    expect(b.elector.isLeader()).toBe(false);
  });

  it('a leader that cannot renew within renewDeadline stops leading: signal aborted, onStoppedLeading', async () => {
    const a = candidate('a');
    await until('a leads', () => a.elector.isLeader());
    t.fake.intercept = (req, res) => {
      if (req.headers['user-agent'] !== 'a') return false;
      res.writeHead(500);
      res.end();
      return true;
    };
    const t0 = Date.now();
    await a.done;
    expect(Date.now() - t0).toBeLessThan(TIMING.renewDeadlineMs + 2 * TIMING.retryPeriodMs + 1500);
    expect(a.leaderSignal?.aborted).toBe(true);
    expect(a.events.at(-1)).toBe('stopped');
    expect(a.elector.isLeader()).toBe(false);
  });
});

describe('LeaderElector.healthCheck (FakeClock)', () => {
  it('turns false when leading but not renewed for leaseDuration + tolerance', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock();
    let started = false;
    const el = new LeaderElector({
      client: new RestClient({ server: 'http://127.0.0.1:1' }),
      namespace: 'mem',
      name: 'lock',
      identity: 'me',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      healthToleranceMs: 5_000,
      clock,
      lock,
      callbacks: { onStartedLeading: () => void (started = true), onStoppedLeading() {} },
    });
    const ctrl = new AbortController();
    void el.run(ctrl.signal);
    await until('started', () => started);
    expect(el.isLeader()).toBe(true);
    await clock.advance(2_000);
    expect(el.healthCheck()).toBe(true);
    lock.hang = true; // the renewal never returns (a wedged request that ignores its deadline)
    await clock.advance(2_000);
    await clock.advance(15_000);
    expect(el.healthCheck()).toBe(true);
    await clock.advance(6_000);
    expect(el.isLeader()).toBe(true);
    expect(el.healthCheck()).toBe(false);
    ctrl.abort();
  });
});
