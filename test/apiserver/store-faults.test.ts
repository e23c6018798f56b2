// kube-apiserver processes whose SQLite store fails underneath them: a full disk (writes 500 with the cause,
// /readyz and /livez fail their etcd check, both recover without a restart once there is space) and a WAL
// deleted under two live replicas (writes 503, readiness fails, and no write that got a 201 is lost when
// both are SIGKILLed).
import Database from 'better-sqlite3';
import path from 'node:path';
import { mountTmpfs, type Tmpfs } from '@kemu/base/testing/tmpfs';
import { BIN, startProcess, waitFor } from '@kemu/base/testing/processes';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { api, startCluster, startReplica, type Cluster, type Replica } from './cluster.ts';

const FAST_CHECK = ['--etcd-healthcheck-timeout=200ms'];

describe('--etcd-healthcheck-timeout', () => {
  it('must be greater than 0', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kemu-healthcheck-'));
    const p = startProcess('apiserver-bad-timeout', BIN.apiserver, ['--bind-address=127.0.0.1', '--secure-port=0', `--datastore-endpoint=sqlite://${path.join(dir, 'state.db')}`, '--etcd-healthcheck-timeout=0s']);
    try {
      expect(await p.exited).toBe(2);
      expect(p.output()).toContain('--etcd-healthcheck-timeout must be greater than 0');
    } finally {
      await p.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kube-apiserver on a full disk', () => {
  let replica: Replica | undefined;
  let tmpfs: Tmpfs | undefined;
  afterAll(async () => {
    await replica?.proc.kill('SIGKILL');
    tmpfs?.unmount();
  });

  it('answers writes with a 500 Status naming the cause, fails /readyz and /livez, and is ready again once space is freed (needs mount rights for a tmpfs)', async (ctx) => {
    // Mounted here, not at collection, so a run that filters this test out leaves no mount behind.
    tmpfs = mountTmpfs(16 * 1024 * 1024);
    if (!tmpfs) return ctx.skip('no right to mount a tmpfs');
    const fs = tmpfs;
    const r = await startReplica(path.join(fs.dir, 'state.db'), 'apiserver-full', FAST_CHECK);
    replica = r;
    const cms = `${r.url}/api/v1/namespaces/default/configmaps`;
    expect((await api(cms, 'POST', { metadata: { name: 'before' }, data: { a: '1' } })).status).toBe(201);

    fs.fill();
    const big = 'x'.repeat(512 * 1024);
    let failed: Awaited<ReturnType<typeof api>> | undefined;
    for (let i = 0; i < 50 && !failed; i++) {
      const res = await api(cms, 'POST', { metadata: { name: `big-${i}` }, data: { a: big } });
      if (res.status !== 201) failed = res;
    }
    expect(failed?.status).toBe(500);
    expect(failed?.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500 });
    expect(failed?.body.message).toMatch(/^Internal error occurred: database or disk is full/);

    const ready = await api(`${r.url}/readyz`, 'GET');
    expect(ready.status).toBe(500);
    const verbose = await api(`${r.url}/readyz?verbose`, 'GET');
    expect(verbose.text).toContain('[-]etcd failed: reason withheld');
    expect(verbose.text).toContain('readyz check failed');
    const live = await api(`${r.url}/livez?verbose`, 'GET');
    expect(live.status).toBe(500);
    expect(live.text).toContain('[-]etcd failed: reason withheld');
    // Reads still work while writes cannot.
    expect((await api(`${cms}/before`, 'GET')).status).toBe(200);

    fs.free();
    await waitFor('/readyz 200 after space is freed', async () => (await api(`${r.url}/readyz`, 'GET')).status === 200, 10_000);
    expect((await api(cms, 'POST', { metadata: { name: 'after' }, data: { a: big } })).status).toBe(201);
    expect((await api(`${r.url}/livez?verbose`, 'GET')).text).toContain('[+]etcd ok');
    expect(r.proc.output()).toMatch(/store cannot write/);
  });
});

describe('kube-apiserver replicas whose WAL is deleted', () => {
  let cluster: Cluster | undefined;
  let restarted: Replica | undefined;
  afterAll(async () => {
    await restarted?.proc.kill('SIGKILL');
    await cluster?.stop();
  });

  it('refuse writes with 503 and fail /readyz instead of acknowledging writes a crash would lose; a restart finds every acknowledged write', async () => {
    cluster = await startCluster(2, FAST_CHECK);
    const c = cluster;
    const [A, B] = c.replicas as [Replica, Replica];
    const acked: string[] = [];
    const refusals: Array<Awaited<ReturnType<typeof api>>> = [];
    const refusedBy = new Set<Replica>();
    let stop = false;
    const writer = async (r: Replica, k: number) => {
      for (let i = 0; !stop; i++) {
        const name = `wal-${k}-${i}`;
        const res = await api(`${r.url}/api/v1/namespaces/default/configmaps`, 'POST', { metadata: { name }, data: { i: String(i) } });
        if (res.status === 201) acked.push(name);
        else if (res.status === 503) {
          refusals.push(res);
          refusedBy.add(r);
          await new Promise((resolve) => setTimeout(resolve, 20));
        } else throw new Error(`unexpected ${res.status}: ${res.text}`);
      }
    };
    const writers = [writer(A, 0), writer(A, 1), writer(B, 2), writer(B, 3)];
    await waitFor('100 acknowledged writes', () => acked.length >= 100, 30_000, 10);
    rmSync(`${c.db}-wal`);
    await waitFor('both replicas refusing writes', () => refusedBy.size === 2, 10_000, 10);
    const ackedAfterRefusal = acked.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop = true;
    await Promise.all(writers);
    expect(acked.length).toBe(ackedAfterRefusal);

    expect(refusals[0]?.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'ServiceUnavailable', code: 503 });
    expect(refusals[0]?.body.message).toMatch(/^storage is unavailable: state\.db-wal was deleted while the store had it open/);
    // A write outside the registry's own path (a Service's ClusterIP allocation) is refused the same way.
    const svc = await api(`${A.url}/api/v1/namespaces/default/services`, 'POST', { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } });
    expect(svc.body).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    for (const r of [A, B]) {
      expect((await api(`${r.url}/readyz`, 'GET')).status).toBe(500);
      expect((await api(`${r.url}/readyz?verbose`, 'GET')).text).toContain('[-]etcd failed: reason withheld');
      expect((await api(`${r.url}/api/v1/namespaces/default/configmaps/wal-0-0`, 'GET')).status).toBe(200);
      expect(r.proc.output()).toMatch(/store fenced/);
    }

    // A crash of every process on the file: what they wrote to the deleted WAL is gone unless it was
    // checkpointed into the database file. Every write that got a 201 must still be there.
    await Promise.all(c.replicas.map((r) => r.proc.kill('SIGKILL')));
    const db = new Database(c.db);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    restarted = await startReplica(c.db, 'apiserver-restarted', FAST_CHECK);
    const list = await api(`${restarted.url}/api/v1/namespaces/default/configmaps`, 'GET');
    const names = new Set(list.body.items?.map((i) => i.metadata.name));
    expect(acked.filter((n) => !names.has(n))).toEqual([]);
    expect((await api(`${restarted.url}/api/v1/namespaces/default/configmaps`, 'POST', { metadata: { name: 'after-restart' } })).status).toBe(201);
  });
});
