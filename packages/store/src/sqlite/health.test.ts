import { silentLogger } from '@kemu/base';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../backend.ts';
import type { FileChange, FileIdentity } from './file-identity.ts';
import { StoreHealth } from './health.ts';

/** A StoreHealth whose probe commits (or fails) as told, on a clock the test moves. */
function setup(o: { timeoutMs?: number; files?: () => FileChange | undefined; rescue?: () => boolean } = {}) {
  let now = 1000;
  let probes = 0;
  let next: 'ok' | 'fail' | 'hang' = 'ok';
  const health: StoreHealth = new StoreHealth({
    files: o.files ? ({ check: o.files } as unknown as FileIdentity) : undefined,
    probe: async () => {
      probes++;
      if (next === 'hang') return new Promise<void>(() => {});
      if (next === 'fail') {
        const err = new Error('database or disk is full');
        health.writeFailed(err);
        throw err;
      }
      const lost = health.verifyCommit();
      if (lost) throw lost;
    },
    rescue: o.rescue ?? (() => true),
    timeoutMs: o.timeoutMs ?? 2000,
    logger: silentLogger(),
    now: () => now,
  });
  return {
    health,
    probes: () => probes,
    advance: (ms: number) => (now += ms),
    set: (v: typeof next) => (next = v),
  };
}

describe('StoreHealth', () => {
  it('probes at most once per half the timeout and answers with the last result in between', async () => {
    const t = setup();
    expect(await t.health.healthy()).toBe(true);
    expect(await t.health.healthy()).toBe(true);
    expect(t.probes()).toBe(1);
    t.set('fail');
    t.advance(999);
    expect(await t.health.healthy()).toBe(true);
    t.advance(1);
    expect(await t.health.healthy()).toBe(false);
    expect(t.probes()).toBe(2);
  });

  it('does not probe while real commits keep proving the store writes', async () => {
    const t = setup();
    for (let i = 0; i < 5; i++) {
      t.advance(500);
      expect(t.health.verifyCommit()).toBeUndefined();
      expect(await t.health.healthy()).toBe(true);
    }
    expect(t.probes()).toBe(0);
  });

  it('fails on a failed write and recovers with the next successful commit, without a restart', async () => {
    const t = setup();
    t.health.writeFailed(new Error('attempt to write a readonly database'));
    expect(await t.health.healthy()).toBe(false);
    t.advance(1000);
    expect(await t.health.healthy()).toBe(true);
  });

  it('fails when a probe does not complete within the timeout', async () => {
    const t = setup({ timeoutMs: 20 });
    t.set('hang');
    expect(await t.health.healthy()).toBe(false);
  });

  it('is fenced for good once a file changed: writes refused, rescue retried until done', async () => {
    let changed: FileChange | undefined;
    let rescues = 0;
    const t = setup({ files: () => changed, rescue: () => ++rescues >= 2 });
    expect(await t.health.healthy()).toBe(true);
    expect(t.health.refusal()).toBeUndefined();
    changed = { file: 'wal', message: 'state.db-wal was deleted while the store had it open' };
    const lost = t.health.verifyCommit();
    expect(lost).toBeInstanceOf(StoreUnavailableError);
    expect(lost?.message).toMatch(/^storage is unavailable: state\.db-wal was deleted/);
    expect(t.health.refusal()).toBe(lost);
    changed = undefined;
    t.advance(10_000);
    expect(await t.health.healthy()).toBe(false);
    t.health.refusal();
    expect(rescues).toBe(2);
  });

  it('does not checkpoint into a database file that was replaced', async () => {
    let rescues = 0;
    const t = setup({ files: () => ({ file: 'database', message: 'state.db was replaced while the store had it open' }), rescue: () => ++rescues > 0 });
    expect(await t.health.healthy()).toBe(false);
    expect(t.health.refusal()).toBeInstanceOf(StoreUnavailableError);
    expect(rescues).toBe(0);
  });
});
