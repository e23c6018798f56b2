// Hostile clients against a real kube-apiserver process, with the deadlines shortened by flags: half-sent
// bodies beyond --max-mutating-requests-inflight do not hold up writes and are answered 504 and closed,
// silent connections are closed, and watchers that never read are cut off with their sockets destroyed
// (over --max-watch-buffer-bytes, or after --watch-unresponsive-timeout) while a reading watcher keeps up.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiserver, type ApiserverProc } from '../support/apiserver.ts';
import { halfBodies, rssBytes, silentConnections, stalledWatchers, stalledWebSocketWatchers, type HostileGroup } from '../support/hostile-clients.ts';
import { waitFor } from '@kemu/base/testing/processes';

const MiB = 1024 * 1024;
const BIG = 100_000;
let dir: string;
let api: ApiserverProc;
const groups: HostileGroup[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kemu-hostile-'));
  api = await startApiserver('apiserver-hostile', path.join(dir, 'state.db'), {
    extra: [
      '--max-mutating-requests-inflight=20',
      '--request-timeout=4s',
      '--read-header-timeout=1s',
      '--read-body-timeout=1s',
      `--max-watch-buffer-bytes=${4 * MiB}`,
      '--watch-unresponsive-timeout=2s',
    ],
  });
});
afterAll(async () => {
  for (const g of groups) g.close();
  await api?.proc.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, p: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await request(api.url + p, { method: method as 'GET', headers: { 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await r.body.text();
  return { status: r.statusCode, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function metric(name: string, labels: string): Promise<number> {
  const r = await request(`${api.url}/metrics`);
  const text = await r.body.text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

const openFds = (): number => readdirSync(`/proc/${api.proc.child.pid ?? 0}/fd`).length;
const bigData = (i: number): Record<string, string> => ({ v: `${i}`.padEnd(BIG, 'x') });

async function putBig(i: number): Promise<number> {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'default' }, data: bigData(i) };
  const r = await call('PUT', '/api/v1/namespaces/default/configmaps/big', cm);
  expect(r.status).toBe(200);
  return performance.now();
}

/** A watch that reads everything and records when each MODIFIED event of "big" arrived. */
async function readingWatcher(): Promise<{ arrivals: number[]; stop(): void }> {
  const ac = new AbortController();
  const res = await request(`${api.url}/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dbig&resourceVersion=0`, { signal: ac.signal });
  const arrivals: number[] = [];
  void (async () => {
    let pending = '';
    for await (const chunk of res.body) {
      pending += (chunk as Buffer).toString('latin1');
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        if (pending.startsWith('{"type":"MODIFIED"')) arrivals.push(performance.now());
        pending = pending.slice(nl + 1);
      }
    }
  })().catch(() => undefined);
  return { arrivals, stop: () => ac.abort() };
}

describe('hostile clients against a real apiserver', () => {
  it('serves writes while half-sent bodies exceed the mutating limit, then answers those 504 and closes them and silent connections', async () => {
    const half = await halfBodies(api.port, 60);
    const silent = await silentConnections(api.port, 200);
    groups.push(half, silent);
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const r = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `during-${i}` } });
      expect(r.status).toBe(201);
      expect(performance.now() - t0).toBeLessThan(1_000);
    }
    expect((await call('GET', '/readyz')).status).toBe(200);
    await waitFor('half bodies closed', () => half.open() === 0, 10_000);
    await waitFor('silent connections closed', () => silent.open() === 0, 10_000);
    for (const s of half.sockets) {
      expect(s.answer).toMatch(/^HTTP\/1\.1 504 /);
      expect(s.answer).toContain('"reason":"Timeout"');
      // Closed by the 1 s body pause limit, long before --request-timeout.
      expect((s.closedAt ?? Infinity) - s.openedAt).toBeLessThan(3_500);
    }
    for (const s of silent.sockets) {
      expect(s.answer).toBe('');
      expect((s.closedAt ?? Infinity) - s.openedAt).toBeLessThan(3_500);
    }
  });

  it('cuts off watchers that never read, destroys their sockets and keeps a reading watcher on time', async () => {
    expect((await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'big' }, data: bigData(-1) })).status).toBe(201);
    for (let i = 0; i < 20; i++) await putBig(i); // warm-up, so the baseline includes the cache's own growth
    const reader = await readingWatcher();
    const rss0 = (await rssBytes(api.proc.child.pid ?? 0)) ?? 0;
    const fds0 = openFds();
    const watched = '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0';
    // Half share one encoding of each event, half have a selector and are written to one by one.
    const stalled = [await stalledWatchers(api.port, 40, watched), await stalledWatchers(api.port, 40, `${watched}&labelSelector=app!%3Dnone`)];
    groups.push(...stalled);
    await waitFor('watchers registered', async () => (await metric('apiserver_registered_watchers', 'resource="configmaps"')) >= 81, 10_000);
    const terminated0 = await metric('apiserver_terminated_watchers_total', 'group="",resource="configmaps"');
    const sent: number[] = [];
    let peak = rss0;
    const n0 = reader.arrivals.length;
    for (let i = 0; i < 150; i++) {
      sent.push(await putBig(100 + i));
      if (i % 10 === 0) peak = Math.max(peak, (await rssBytes(api.proc.child.pid ?? 0)) ?? 0);
    }
    await waitFor('all stalled watchers cut off', async () => (await metric('apiserver_terminated_watchers_total', 'group="",resource="configmaps"')) - terminated0 >= 80, 15_000);
    await waitFor('the reading watcher got every event', () => reader.arrivals.length - n0 >= 150, 10_000);
    const lags = sent.map((t, i) => (reader.arrivals[n0 + i] ?? Infinity) - t).sort((a, b) => a - b);
    expect(lags[Math.floor(lags.length / 2)]).toBeLessThan(250);
    // Destroyed, not just ended: the server holds none of their sockets although the clients never closed them.
    await waitFor('sockets released', () => openFds() <= fds0 + 5, 5_000);
    expect(api.proc.output()).toContain('Forcing configmaps watcher close due to unresponsiveness');
    for (const g of stalled) g.close();
    const after = (await rssBytes(api.proc.child.pid ?? 0)) ?? 0;
    // 80 watchers × 4 MiB unsent copies would be 320 MiB; shared lines cost references.
    expect(peak - rss0).toBeLessThan(200 * MiB);
    expect(after - rss0).toBeLessThan(200 * MiB);
    reader.stop();
  });

  it('cuts off a watcher that stops reading a stream below the buffer bound after --watch-unresponsive-timeout', async () => {
    const stalled = await stalledWatchers(api.port, 10, '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0');
    groups.push(stalled);
    await waitFor('watchers registered', async () => (await metric('apiserver_registered_watchers', 'resource="configmaps"')) >= 10, 10_000);
    const terminated0 = await metric('apiserver_terminated_watchers_total', 'group="",resource="configmaps"');
    // About 6 MB each: a few MB fill the kernel's buffers, the rest waits in the server, under the 4 MiB bound.
    for (let i = 0; i < 60; i++) await putBig(1000 + i);
    const last = performance.now();
    expect(await metric('apiserver_terminated_watchers_total', 'group="",resource="configmaps"')).toBe(terminated0);
    await waitFor('stalled watchers cut off', async () => (await metric('apiserver_terminated_watchers_total', 'group="",resource="configmaps"')) - terminated0 >= 10, 10_000);
    expect(performance.now() - last).toBeGreaterThan(1_000);
    stalled.close();
  });

  it('cuts off WebSocket watchers that never read', async () => {
    const fds0 = openFds();
    const stalled = await stalledWebSocketWatchers(api.port, 10, '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0');
    groups.push(stalled);
    await waitFor('watchers registered', async () => (await metric('apiserver_registered_watchers', 'resource="configmaps"')) >= 10, 10_000);
    const terminated0 = await metric('apiserver_terminated_watchers_total', 'group="",resource="configmaps"');
    for (let i = 0; i < 100; i++) await putBig(2000 + i);
    await waitFor('stalled WebSocket watchers cut off', async () => (await metric('apiserver_terminated_watchers_total', 'group="",resource="configmaps"')) - terminated0 >= 10, 10_000);
    await waitFor('sockets released', () => openFds() <= fds0 + 5, 5_000);
    stalled.close();
  });
});
