// Chaos on the etcd store (`kemu up --store etcd`): three members, two apiservers, nothing else. Losing one
// member under a write load costs no acknowledged write; losing two (no quorum) fails writes within etcd's
// request timeout with a Status naming the cause, never a hang, and they succeed again once a member returns;
// every apiserver stopped and started again on the same etcd finds the state there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { pidAlive } from '@kemu/kemu';
import { etcdMissing } from '@kemu/store/testing/etcd-server';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN } from '@kemu/base/testing/processes';
import { startLab, missing, run, type Lab } from '../lab/lab.ts';
import { call, items, rec, type Reply } from '../lab/api.ts';

const skip = missing('apiserver') ?? etcdMissing();
if (skip) console.warn(`test/chaos/etcd-members.test.ts: skipped: ${skip}`);

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

describe.skipIf(skip)('etcd members under chaos (kemu up --store etcd)', () => {
  let lab: Lab;
  const acknowledged = new Set<string>();
  const apiservers = () => ['apiserver-0', 'apiserver-1'].map((n) => lab.url(n));
  const create = (server: string, name: string, timeoutMs = 20_000): Promise<Reply> =>
    call(server, 'POST', '/api/v1/namespaces/default/configmaps', cm(name), timeoutMs);
  const listed = async (): Promise<Set<string>> => {
    const r = await call(apiservers()[0]!, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(r.status).toBe(200);
    return new Set(items(r).map((o) => String(rec(o.metadata).name)));
  };
  const kill = async (name: string): Promise<void> => {
    const pid = lab.pid(name);
    expect(pid, `${name}'s pid in kemu.json`).toBeTruthy();
    // `kemu kill` is SIGKILL to the member's process group, held down until `kemu start`.
    expect((await lab.kemu('kill', name)).code).toBe(0);
    expect(pidAlive(pid)).toBe(false);
  };

  beforeAll(async () => {
    lab = await startLab({ apiservers: 2, controllerManagers: 0, schedulers: 0, workers: 0, extra: ['--store=etcd', '--audit-log=false'] });
    await lab.waitRunning(undefined, 120_000);
  }, 150_000);
  afterAll(async () => {
    await lab?.down();
  }, 60_000);

  it('shows every member in kubectl get cs', async () => {
    const cs = await call(apiservers()[0]!, 'GET', '/api/v1/componentstatuses');
    const etcd = items(cs).filter((c) => String(rec(c.metadata).name).startsWith('etcd-'));
    expect(etcd.map((c) => [rec(c.metadata).name, (rec(c).conditions as { status: string }[])[0]?.status])).toEqual([
      ['etcd-0', 'True'],
      ['etcd-1', 'True'],
      ['etcd-2', 'True'],
    ]);
  });

  it('keeps writing through a member SIGKILLed under load, and loses no acknowledged write', async () => {
    const statuses: { status: number; message: string; afterKill: boolean }[] = [];
    let killed = false;
    let stop = false;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const name = `load-${w}-${i}`;
        const server = apiservers()[w % 2]!;
        const afterKill = killed;
        try {
          const r = await create(server, name);
          statuses.push({ status: r.status, message: String(rec(r.body).message ?? ''), afterKill });
          if (r.status === 201) acknowledged.add(name);
        } catch (e) {
          statuses.push({ status: 0, message: String(e), afterKill });
        }
      }
    };
    const writers = Array.from({ length: 6 }, (_, w) => writer(w));
    await waitFor('writes before the kill', () => acknowledged.size >= 100, 20_000);
    // etcd-0 is the member every apiserver's client talks to first: its loss makes them fail over.
    await kill('etcd-0');
    killed = true;
    const atKill = acknowledged.size;
    await waitFor('writes after the kill', () => acknowledged.size >= atKill + 200, 30_000);
    stop = true;
    await Promise.all(writers);

    const failed = statuses.filter((s) => s.status !== 201);
    // Only the writes in flight at the kill may fail, each with a Status that says why (503: outcome unknown).
    for (const f of failed) {
      expect([500, 503, 504], f.message).toContain(f.status);
      expect(f.message).not.toBe('');
    }
    expect(failed.length, JSON.stringify(failed.slice(0, 5))).toBeLessThanOrEqual(12);
    const have = await listed();
    expect([...acknowledged].filter((n) => !have.has(n))).toEqual([]);
  }, 90_000);

  it('fails writes with a Status naming the cause within etcd\'s request timeout when two members are gone, and recovers when one returns', async () => {
    await kill('etcd-1');
    try {
      const t0 = Date.now();
      const r = await create(apiservers()[0]!, 'no-quorum');
      const took = Date.now() - t0;
      const s = rec(r.body);
      expect(s.kind).toBe('Status');
      expect(r.status).toBe(s.code);
      expect([500, 503, 504]).toContain(r.status);
      expect(String(s.message)).toMatch(/context deadline exceeded|request timed out|no leader/);
      expect(took).toBeLessThan(15_000);
      // Not ready while the store cannot write, so a balancer sends nothing new here.
      expect((await call(apiservers()[1]!, 'GET', '/readyz', undefined, 15_000)).status).toBe(500);
    } finally {
      // Back whatever happened above, so a failure here does not take the next test's quorum with it.
      expect((await lab.kemu('start', 'etcd-1')).code).toBe(0);
    }
    let last: Reply | undefined;
    await waitFor('a write after etcd-1 returned', async () => {
      last = await create(apiservers()[1]!, `quorum-back-${Date.now()}`);
      if (last.status === 201) acknowledged.add(String(rec(rec(last.body).metadata).name));
      return last.status === 201;
    }, 40_000, 200);
    await waitFor('apiservers ready again', async () => (await call(apiservers()[0]!, 'GET', '/readyz')).status === 200, 20_000);
  }, 90_000);

  it('finds every acknowledged object after all apiservers are stopped and started again on the same etcd', async () => {
    const stopped = await Promise.all(['apiserver-0', 'apiserver-1'].map((n) => lab.kemu('stop', n)));
    expect(stopped.map((r) => r.code)).toEqual([0, 0]);
    for (const n of ['apiserver-0', 'apiserver-1']) expect((await lab.kemu('start', n)).code).toBe(0);
    await lab.waitRunning(['apiserver-0', 'apiserver-1'], 60_000);
    const have = await listed();
    expect(acknowledged.size).toBeGreaterThan(300);
    expect([...acknowledged].filter((n) => !have.has(n))).toEqual([]);
  }, 90_000);
});

describe('kemu up --store etcd without etcd installed', () => {
  it('says what to install and exits 2 before starting anything', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-no-etcd-'));
    try {
      const r = await run(process.execPath, [BIN.kemu, 'up', '--store=etcd', `--data-dir=${dir}`], { PATH: '/nonexistent' });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('Error: --store etcd needs etcd, which is not installed (no "etcd" on PATH): apt-get install etcd-server');
      expect(fs.existsSync(path.join(dir, 'kemu.json'))).toBe(false);
      const bad = await run(process.execPath, [BIN.kemu, 'up', '--store=postgres', `--data-dir=${dir}`]);
      expect([bad.code, bad.stderr.trim()]).toEqual([2, 'Error: --store must be one of sqlite, etcd (got "postgres")']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
