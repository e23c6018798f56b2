// "A restart keeps the cluster's state": `kemu up --data-dir D`, create a ConfigMap, Ctrl-C (SIGINT to
// `kemu up`: every component it recorded in kemu.json is gone), `kemu up --data-dir D` again → the same
// ConfigMap, same uid. The state lives in D/state.db, not in the processes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { pidAlive } from '@kemu/kemu';
import { startLab, missing, type Lab } from './lab.ts';
import { call, labFetch, rec } from './api.ts';

const skip = missing('apiserver');
if (skip) console.warn(`test/lab/kemu-restart.test.ts: ${skip}`);

describe.skipIf(skip)('kemu up restarted on the same data dir', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-restart-'));
  const labs: Lab[] = [];
  afterAll(async () => {
    for (const l of labs) await l.down();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const up = async () => {
    const lab = await startLab({ dir, apiservers: 2, controllerManagers: 1, schedulers: 1, workers: 1 });
    labs.push(lab);
    // kemu.json is left from the previous run until the new supervisor rewrites it.
    await waitFor('kemu.json from this kemu up', () => {
      try {
        return lab.state().supervisorPid === lab.proc.child.pid;
      } catch {
        return false;
      }
    }, 30_000, 100);
    await lab.waitRunning(undefined, 120_000);
    await waitFor('the balancer serves /readyz', async () => (await labFetch(`${lab.server}/readyz`).catch(() => undefined))?.status === 200, 30_000, 100);
    return lab;
  };

  it('keeps a ConfigMap (same uid) across Ctrl-C and kemu up again; Ctrl-C leaves no component running', async () => {
    const first = await up();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'survivor' }, data: { greeting: 'hello' } };
    const created = await call(first.server, 'POST', '/api/v1/namespaces/default/configmaps', cm);
    expect(created.status).toBe(201);
    const uid = rec(rec(created.body).metadata).uid;
    expect(typeof uid).toBe('string');

    const pids = first.state().components.map((c) => ({ name: c.name, pid: c.pid }));
    expect(pids.length).toBeGreaterThan(0);
    for (const p of pids) expect(p.pid, p.name).toBeTypeOf('number');
    // Ctrl-C: the terminal sends SIGINT to kemu up (each component is in a process group of its own).
    first.proc.child.kill('SIGINT');
    const code = await Promise.race([first.proc.exited, new Promise((r) => setTimeout(() => r('still running after 30s'), 30_000))]);
    expect(code).toBe(0);
    const alive = pids.filter((p) => p.pid !== null && pidAlive(p.pid)).map((p) => `${p.name} (${p.pid})`);
    expect(alive, 'components still running after Ctrl-C').toEqual([]);
    expect(pidAlive(first.proc.child.pid!)).toBe(false);

    const second = await up();
    for (const c of second.state().components) expect(pids.find((p) => p.name === c.name)?.pid, c.name).not.toBe(c.pid);
    const got = await call(second.server, 'GET', '/api/v1/namespaces/default/configmaps/survivor');
    expect(got.status).toBe(200);
    expect(rec(rec(got.body).metadata).uid).toBe(uid);
    expect(rec(got.body).data).toEqual({ greeting: 'hello' });
  }, 240_000);
});
