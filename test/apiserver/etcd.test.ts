// kube-apiserver on etcd v3 (--etcd-servers): objects are created, listed and watched through the REST API
// and land at Kubernetes' keys in etcd; componentstatuses show one etcd-N per --etcd-servers member.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { etcdMissing, opensslMissing, startEtcd, type TestEtcd } from '@kemu/store/testing/etcd-server';
import { request } from 'undici';

const missing = etcdMissing();
let etcd: TestEtcd | undefined;
let apiserver: Proc | undefined;
let url = '';
let deadServer = '';

async function api(path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await request(`${url}${path}`, {
    method: method as 'GET',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown> };
}

describe.skipIf(missing)(`kube-apiserver --etcd-servers${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(async () => {
    etcd = await startEtcd();
    deadServer = `http://127.0.0.1:${await freePort()}`;
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    apiserver = startProcess('kube-apiserver-etcd', BIN.apiserver, [
      '--bind-address=127.0.0.1',
      '--secure-port=0',
      `--insecure-port=${port}`,
      '--storage-backend=etcd3',
      `--etcd-servers=${etcd.url},${deadServer}`,
      '--etcd-healthcheck-timeout=1s',
    ]);
    await waitFor(
      'kube-apiserver ready on etcd',
      async () => {
        if (apiserver?.child.exitCode !== null) throw new Error(`kube-apiserver exited: ${apiserver?.output()}`);
        const r = await request(`${url}/readyz`);
        await r.body.text();
        return r.statusCode === 200;
      },
      30_000,
    );
  }, 60_000);
  afterAll(async () => {
    await apiserver?.kill('SIGKILL');
    await etcd?.stop();
  });

  it('creates, lists and watches through etcd; the resourceVersion is etcd\'s revision', async () => {
    const list0 = await api('/api/v1/namespaces/default/configmaps');
    expect(list0.status).toBe(200);
    const from = (list0.body.metadata as { resourceVersion: string }).resourceVersion;
    const watch = await request(`${url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${from}&timeoutSeconds=10`);
    const created = await api('/api/v1/namespaces/default/configmaps', 'POST', { metadata: { name: 'on-etcd' }, data: { a: '1' } });
    expect(created.status).toBe(201);
    const rv = (created.body.metadata as { resourceVersion: string }).resourceVersion;

    let text = '';
    for await (const chunk of watch.body) {
      text += (chunk as Buffer).toString();
      if (text.includes('\n')) break;
    }
    watch.body.destroy();
    const ev = JSON.parse(text.split('\n')[0] as string) as { type: string; object: { metadata: { name: string; resourceVersion: string } } };
    expect(ev.type).toBe('ADDED');
    expect(ev.object.metadata).toMatchObject({ name: 'on-etcd', resourceVersion: rv });

    const list = await api('/api/v1/namespaces/default/configmaps');
    expect((list.body.items as { metadata: { name: string } }[]).map((i) => i.metadata.name)).toContain('on-etcd');

    const get = spawnSync('etcdctl', ['--endpoints', (etcd as TestEtcd).url, 'get', '/registry/configmaps/default/on-etcd', '-w', 'json'], { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } });
    // etcdctl ships apart from etcd (etcd-client): the key check runs wherever it is installed, and fails if it cannot read the key.
    if (spawnSync('etcdctl', ['version']).status === 0) {
      expect(get.status, get.stderr).toBe(0);
      const kv = (JSON.parse(get.stdout) as { kvs: { key: string; mod_revision: number }[] }).kvs[0];
      expect(Buffer.from(kv?.key ?? '', 'base64').toString()).toBe('/registry/configmaps/default/on-etcd');
      expect(String(kv?.mod_revision)).toBe(rv);
    }
  }, 30_000);

  it.skipIf(spawnSync('etcdctl', ['version']).status !== 0)('answers a list at a revision etcd has compacted with 410 Gone, as on SQLite', async () => {
    const first = await api('/api/v1/namespaces/default/configmaps', 'POST', { metadata: { name: 'old' } });
    expect(first.status).toBe(201);
    const oldRv = (first.body.metadata as { resourceVersion: string }).resourceVersion;
    expect((await api('/api/v1/namespaces/default/configmaps', 'POST', { metadata: { name: 'newer' } })).status).toBe(201);
    const head = (await api('/api/v1/namespaces/default/configmaps')).body.metadata as { resourceVersion: string };
    const c = spawnSync('etcdctl', ['--endpoints', (etcd as TestEtcd).url, 'compact', head.resourceVersion], { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } });
    expect(c.status).toBe(0);
    const r = await api(`/api/v1/namespaces/default/configmaps?resourceVersion=${oldRv}&resourceVersionMatch=Exact`);
    expect(r.status).toBe(410);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Expired' });
    expect(String(r.body.message)).toContain('too old resource version');
  }, 30_000);

  it('componentstatuses show etcd-0 Healthy and the unreachable etcd-1 Unhealthy', async () => {
    const r = await api('/api/v1/componentstatuses');
    expect(r.status).toBe(200);
    const byName = new Map(
      (r.body.items as { metadata: { name: string }; conditions: { status: string; message?: string; error?: string }[] }[]).map((i) => [i.metadata.name, i.conditions[0]]),
    );
    expect(byName.get('etcd-0')).toMatchObject({ status: 'True', message: 'ok' });
    expect(byName.get('etcd-1')?.status).toBe('False');
    expect(byName.get('etcd-1')?.error).toBeTruthy();
    // /readyz's etcd check is the store's (quorum reachable through any member): still ok.
    const ready = await request(`${url}/readyz?verbose`);
    expect(ready.statusCode).toBe(200);
    expect(await ready.body.text()).toContain('[+]etcd ok');
  }, 30_000);

  it('refuses --storage-backend=etcd3 without --etcd-servers as kube-apiserver does', async () => {
    const p = startProcess('kube-apiserver-no-etcd', BIN.apiserver, ['--bind-address=127.0.0.1', '--secure-port=0', '--storage-backend=etcd3']);
    try {
      await waitFor('exit', async () => p.child.exitCode !== null, 20_000);
      expect(p.child.exitCode).toBe(1);
      expect(p.output()).toContain('--etcd-servers must be specified');
    } finally {
      await p.kill('SIGKILL');
    }
  }, 30_000);
});

describe.skipIf(missing || opensslMissing())('kube-apiserver --etcd-servers over TLS', () => {
  let secure: TestEtcd | undefined;
  let proc: Proc | undefined;
  afterAll(async () => {
    await proc?.kill('SIGKILL');
    await secure?.stop();
  });

  it('connects with --etcd-cafile, --etcd-certfile and --etcd-keyfile; etcd-0 is Healthy', async () => {
    secure = await startEtcd({ tls: true });
    const tls = secure.tls as NonNullable<TestEtcd['tls']>;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    proc = startProcess('kube-apiserver-etcd-tls', BIN.apiserver, [
      '--bind-address=127.0.0.1',
      '--secure-port=0',
      `--insecure-port=${port}`,
      `--etcd-servers=${secure.url}`,
      `--etcd-cafile=${tls.caFile}`,
      `--etcd-certfile=${tls.certFile}`,
      `--etcd-keyfile=${tls.keyFile}`,
      '--etcd-prefix=/kemu-tls',
    ]);
    await waitFor(
      'kube-apiserver ready on etcd over TLS',
      async () => {
        if (proc?.child.exitCode !== null) throw new Error(`kube-apiserver exited: ${proc?.output()}`);
        const r = await request(`${base}/readyz`);
        await r.body.text();
        return r.statusCode === 200;
      },
      30_000,
    );
    const cs = await request(`${base}/api/v1/componentstatuses/etcd-0`);
    const body = (await cs.body.json()) as { conditions: { status: string }[] };
    expect(cs.statusCode).toBe(200);
    expect(body.conditions[0]?.status).toBe('True');
  }, 60_000);
});
