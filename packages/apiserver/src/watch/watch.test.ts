// Watch semantics against a listening server on a MemoryBackend: initial events, resume from a
// resourceVersion, 410 for compacted history, bookmarks, selector transitions, Table events,
// watch-list (sendInitialEvents), timeoutSeconds and WebSocket framing.
import { silentLogger } from '@kemu/base';
import { MemoryBackend } from '@kemu/store';
import { R } from '@kemu/api';
import net from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ensureSystemNamespaces } from '../bootstrap/system-namespaces.ts';
import { createApiServer, type ApiServer } from '../server.ts';

let srv: ApiServer;
let base: string;

beforeAll(async () => {
  srv = await createApiServer({ backend: new MemoryBackend(), logger: silentLogger(), bookmarkIntervalMs: 200, historySize: 50 });
  await srv.start();
  await ensureSystemNamespaces(srv.ctx.registry);
  base = await srv.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => srv.close());

interface Ev {
  type: string;
  object: { kind?: string; metadata: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; rows?: unknown[]; code?: number; reason?: string; message?: string };
}

/** Opens a watch and collects events until `until` says stop (or the stream ends). */
async function watch(path: string, until: (evs: Ev[]) => boolean, headers: Record<string, string> = {}): Promise<{ events: Ev[]; ended: boolean }> {
  const res = await request(base + path, { headers });
  expect(res.statusCode).toBe(200);
  const events: Ev[] = [];
  let buf = '';
  let ended = true;
  for await (const chunk of res.body) {
    buf += (chunk as Buffer).toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buf.slice(0, nl)) as Ev);
      buf = buf.slice(nl + 1);
    }
    if (until(events)) {
      ended = false;
      res.body.destroy();
      break;
    }
  }
  return { events, ended };
}

async function post(path: string, body: unknown): Promise<{ metadata: { resourceVersion: string } }> {
  const r = await request(base + path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  expect(r.statusCode).toBe(201);
  return (await r.body.json()) as { metadata: { resourceVersion: string } };
}

const cm = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels } });

describe('watch', () => {
  it('sends ADDED for the current state with RV 0, then live events', async () => {
    await post('/api/v1/namespaces/default/configmaps', cm('w0'));
    const p = watch('/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0', (e) => e.some((x) => x.object.metadata.name === 'w1'));
    await new Promise((r) => setTimeout(r, 100));
    await post('/api/v1/namespaces/default/configmaps', cm('w1'));
    const { events } = await p;
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w0' } } });
    expect(events.at(-1)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w1' } } });
  });

  it('resumes after a resourceVersion with nothing lost or repeated', async () => {
    const a = await post('/api/v1/namespaces/default/configmaps', cm('r1'));
    await post('/api/v1/namespaces/default/configmaps', cm('r2'));
    await post('/api/v1/namespaces/default/configmaps', cm('r3'));
    const { events } = await watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${a.metadata.resourceVersion}`, (e) => e.length >= 2);
    expect(events.map((e) => e.object.metadata.name)).toEqual(['r2', 'r3']);
  });

  it('answers a too old resourceVersion with an ERROR 410 event and closes', async () => {
    for (let i = 0; i < 60; i++) await post('/api/v1/namespaces/default/configmaps', cm(`old-${i}`));
    const { events, ended } = await watch('/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=2', () => false);
    expect(ended).toBe(true);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(events[0]?.object.message).toMatch(/^too old resource version: 2 \(\d+\)$/);
  });

  it('sends bookmarks with kind and apiVersion when asked', async () => {
    const rv = (await post('/api/v1/namespaces/default/configmaps', cm('bm'))).metadata.resourceVersion;
    await post('/api/v1/namespaces/default/secrets', cm('bump'));
    const { events } = await watch(`/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`, (e) => e.some((x) => x.type === 'BOOKMARK'));
    const bm = events.find((e) => e.type === 'BOOKMARK');
    expect(bm?.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
    expect(Number(bm?.object.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
  });

  it('turns selector transitions into ADDED and DELETED', async () => {
    const created = await post('/api/v1/namespaces/default/configmaps', cm('sel', { app: 'a' }));
    const p = watch(`/api/v1/namespaces/default/configmaps?watch=true&labelSelector=app%3Db&resourceVersion=${created.metadata.resourceVersion}`, (e) => e.length >= 2);
    const patch = (labels: Record<string, string>) =>
      request(base + '/api/v1/namespaces/default/configmaps/sel', { method: 'PATCH', body: JSON.stringify({ metadata: { labels } }), headers: { 'content-type': 'application/merge-patch+json' } });
    await (await patch({ app: 'b' })).body.text();
    await (await patch({ app: 'c' })).body.text();
    const { events } = await p;
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
  });

  it('wraps events in Tables for a Table Accept', async () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    const { events } = await watch('/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0', (e) => e.length >= 2, { accept });
    expect(events[0]?.object.kind).toBe('Table');
    expect(events[0]?.object.rows).toHaveLength(1);
  });

  it('serves watch-list with the initial-events-end bookmark', async () => {
    const { events } = await watch(
      '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      (e) => e.some((x) => x.type === 'BOOKMARK'),
    );
    const bm = events.find((e) => e.type === 'BOOKMARK');
    expect(bm?.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    expect(events.filter((e) => e.type === 'ADDED').length).toBeGreaterThan(0);
  });

  it('ends the stream after timeoutSeconds', async () => {
    const t0 = Date.now();
    const { ended } = await watch('/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1&resourceVersion=0', () => false);
    expect(ended).toBe(true);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it('streams one event per WebSocket message', async () => {
    const ws = new WebSocket(base.replace('http', 'ws') + '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0');
    const msgs: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (d) => {
        msgs.push(String(d));
        if (msgs.length >= 3) resolve();
      });
      ws.on('error', reject);
    });
    ws.close();
    for (const m of msgs) expect((JSON.parse(m) as Ev).type).toBe('ADDED');
  });

  it('coalesced fan-out: 70 watchers each get every event once, in order, including one that joins mid-stream', async () => {
    const start = (await post('/api/v1/namespaces/default/configmaps', cm('fan-start'))).metadata.resourceVersion;
    const N = 40;
    const url = `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${start}`;
    const watchers = Array.from({ length: 70 }, () => watch(url, (e) => e.length >= N));
    const deadline = Date.now() + 10_000;
    while (srv.ctx.hub.count() < 70 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const rvs: string[] = [];
    let late: Promise<{ events: Ev[] }> | undefined;
    for (let i = 0; i < N; i++) {
      rvs.push((await post('/api/v1/namespaces/default/configmaps', cm(`fan-${i}`))).metadata.resourceVersion);
      if (i === N / 2) late = watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rvs[5]}`, (e) => e.length >= N - 6);
    }
    for (const w of watchers) expect((await w).events.map((e) => e.object.metadata.resourceVersion)).toEqual(rvs);
    expect((await (late as Promise<{ events: Ev[] }>)).events.map((e) => e.object.metadata.resourceVersion)).toEqual(rvs.slice(6));
  });

  it('cuts off a watcher that does not read, without holding up the others', async () => {
    const slow = await createApiServer({ backend: new MemoryBackend(), logger: silentLogger(), maxWatchBufferBytes: 256 * 1024 });
    await slow.start();
    await ensureSystemNamespaces(slow.ctx.registry);
    const url = await slow.app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const { port } = new URL(url);
      const sock = net.connect(Number(port), '127.0.0.1');
      sock.write('GET /api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0 HTTP/1.1\r\nHost: x\r\n\r\n');
      await new Promise((r) => sock.once('data', r));
      sock.pause(); // never read again
      const closed = new Promise((r) => sock.once('close', r));
      const healthy = await request(url + '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0');
      let received = 0;
      const draining = (async () => {
        for await (const chunk of healthy.body) received += (chunk as Buffer).length;
      })().catch(() => undefined);
      const deadline = Date.now() + 30_000;
      while (slow.ctx.hub.count() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(slow.ctx.hub.count()).toBe(2);
      const big = 'x'.repeat(32 * 1024);
      for (let i = 0; slow.ctx.hub.count() > 1 && i < 2000; i++) {
        await slow.ctx.registry.create(R.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}`, namespace: 'default' }, data: { big } });
        // Let the reading client keep up, as a real consumer does.
        while (received < (i + 1) * big.length && Date.now() < deadline) await new Promise((r) => setImmediate(r));
      }
      expect(slow.ctx.hub.count()).toBe(1); // only the reading watcher remains
      sock.destroy();
      await closed;
      expect(healthy.statusCode).toBe(200);
      expect(received).toBeGreaterThan(256 * 1024);
      healthy.body.destroy();
      await draining;
    } finally {
      await slow.close();
    }
  });

  it('rejects bad parameters with a Status before streaming', async () => {
    const r = await request(base + '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=abc');
    expect(r.statusCode).toBe(400);
    expect(((await r.body.json()) as { kind: string }).kind).toBe('Status');
    const f = await request(base + '/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=spec.bogus%3Dx');
    expect(f.statusCode).toBe(400);
    await f.body.text();
  });
});
