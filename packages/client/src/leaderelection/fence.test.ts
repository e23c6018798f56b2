import { describe, expect, it } from 'vitest';
import { FakeClock } from '@kemu/base';
import { RestClient } from '../rest.ts';
import { MemoryLock } from '../testing/memory-lock.ts';
import { FencedWriteError } from '../write-fence.ts';
import { LeaseFence } from './fence.ts';
import { LeaderElector } from './leaderelection.ts';
import { until } from '../testing/lease-contest.ts';

describe('LeaseFence', () => {
  const at = { t: 0 };
  const fence = () => new LeaseFence('kube-system', 'kube-scheduler', 1_000, () => at.t);

  it('refuses writes before the first term and after it ends; its signal is aborted between terms', () => {
    at.t = 0;
    const f = fence();
    expect(() => f.admit()).toThrow(FencedWriteError);
    expect(f.signal.aborted).toBe(true);
    f.renewed('a_1', 3, 0);
    expect(f.admit()).toBe('kube-system/kube-scheduler;holder=a_1;transitions=3');
    const term = f.signal;
    expect(term.aborted).toBe(false);
    f.end('failed to renew');
    expect(term.aborted).toBe(true);
    expect(term.reason).toBeInstanceOf(FencedWriteError);
    expect(() => f.admit()).toThrow(/lease kube-system\/kube-scheduler no longer held \(failed to renew\)/);
  });

  it('admits writes only before renewDeadline from the start of the last renewal, on its own clock', () => {
    at.t = 0;
    const f = fence();
    f.renewed('a_1', 0, 100);
    at.t = 1_099;
    expect(f.admit()).toBeDefined();
    at.t = 1_100;
    expect(f.admit()).toBeUndefined();
    f.renewed('a_1', 0, 900);
    expect(f.admit()).toBeDefined();
    // A renewal that started earlier than one already counted never shortens the term.
    f.renewed('a_1', 0, 50);
    at.t = 1_899;
    expect(f.admit()).toBeDefined();
  });

  it('nextRenewal resolves on a renewal and rejects when the term ends', async () => {
    at.t = 0;
    const f = fence();
    f.renewed('a_1', 0, 0);
    at.t = 2_000;
    const renewed = f.nextRenewal();
    f.renewed('a_1', 0, 1_900);
    await expect(renewed).resolves.toBeUndefined();
    const lost = f.nextRenewal();
    f.end('stopped leading');
    await expect(lost).rejects.toBeInstanceOf(FencedWriteError);
  });

  it('a renewal that shows another term (lost and taken back) aborts the old term', () => {
    at.t = 0;
    const f = fence();
    f.renewed('a_1', 4, 0);
    const old = f.signal;
    f.renewed('a_1', 6, 10);
    expect(old.aborted).toBe(true);
    expect(f.signal.aborted).toBe(false);
    expect(f.admit()).toBe('kube-system/kube-scheduler;holder=a_1;transitions=6');
  });
});

describe('LeaderElector.fence (FakeClock)', () => {
  const start = () => {
    const clock = new FakeClock();
    const lock = new MemoryLock();
    let started = false;
    let stopped = false;
    const el = new LeaderElector({
      client: new RestClient({ server: 'http://127.0.0.1:1' }),
      namespace: 'mem',
      name: 'lock',
      identity: 'me',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 3_000,
      clock,
      lock,
      callbacks: { onStartedLeading: () => void (started = true), onStoppedLeading: () => void (stopped = true) },
    });
    const ctrl = new AbortController();
    const done = el.run(ctrl.signal);
    return { clock, lock, el, ctrl, done, started: () => started, stopped: () => stopped };
  };

  it('admits from the acquisition; past renewDeadline without a renewal it holds writes, then refuses them once the Lease is given up', async () => {
    const e = start();
    const fence = e.el.fence();
    expect(() => fence.admit()).toThrow(FencedWriteError);
    await until('leading', () => e.started());
    expect(fence.admit()).toBe('mem/lock;holder=me;transitions=0');
    e.lock.fail = true; // from now on every renewal fails; the last success started at t=0
    await e.clock.advance(9_999);
    expect(fence.admit()).toBeDefined();
    await e.clock.advance(1);
    expect(fence.admit()).toBeUndefined();
    const waiting = fence.nextRenewal();
    const term = fence.signal;
    // The renew round that began at 3 s (attempts at 3, 6, 9 and 12 s) gives up at 13 s: the term ends.
    await e.clock.advance(3_000);
    await e.done;
    expect(e.stopped()).toBe(true);
    await expect(waiting).rejects.toBeInstanceOf(FencedWriteError);
    expect(term.aborted).toBe(true);
    expect(() => fence.admit()).toThrow(FencedWriteError);
  });

  it('a late renewal within the round lets held writes go', async () => {
    const e = start();
    const fence = e.el.fence();
    await until('leading', () => e.started());
    e.lock.fail = true;
    await e.clock.advance(10_000);
    expect(fence.admit()).toBeUndefined();
    const waiting = fence.nextRenewal();
    e.lock.fail = false;
    await e.clock.advance(2_000); // the attempt at 12 s succeeds
    await expect(waiting).resolves.toBeUndefined();
    expect(fence.admit()).toBe('mem/lock;holder=me;transitions=0');
    e.ctrl.abort();
    await e.done;
    expect(() => fence.admit()).toThrow(FencedWriteError);
  });
});
