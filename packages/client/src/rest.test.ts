import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { R, StatusError } from '@kemu/api';
import { RestClient, resourcePath } from './rest.ts';
import { WatchIdleTimeoutError } from './watch.ts';

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
const servers: http.Server[] = [];

async function serve(h: Handler): Promise<string> {
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => h(req, body, res));
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function json(res: http.ServerResponse, code: number, v: unknown, headers: Record<string, string> = {}) {
  res.writeHead(code, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(v));
}

describe('resourcePath', () => {
  it.each([
    [R.pods, 'default', 'web', 'status', '/api/v1/namespaces/default/pods/web/status'],
    [R.pods, undefined, undefined, undefined, '/api/v1/pods'],
    [R.deployments, 'ns', undefined, undefined, '/apis/apps/v1/namespaces/ns/deployments'],
    [R.nodes, 'ignored', 'n1', undefined, '/api/v1/nodes/n1'],
    [R.leases, 'kube-system', 'kube-scheduler', undefined, '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler'],
  ] as const)('%#', (r, ns, name, sub, want) => {
    expect(resourcePath(r, ns, name, sub)).toBe(want);
  });
});

describe('RestClient', () => {
  it('sends the verbs to the right paths with the right bodies and headers', async () => {
    const seen: string[] = [];
    const server = await serve((req, body, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers['content-type'] ?? ''} ${req.headers.authorization ?? ''} ${body}`);
      if (req.method === 'GET' && req.url?.startsWith('/api/v1/namespaces/default/pods?')) {
        return json(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: null });
      }
      json(res, 200, { metadata: { name: 'p' } });
    });
    const c = new RestClient({ server, token: 't0k', qps: -1 });
    await c.create(R.pods, 'default', { metadata: { name: 'p' } });
    const l = await c.list(R.pods, 'default', { labelSelector: 'app=web', limit: 500 });
    expect(l.items).toEqual([]);
    expect(l.metadata.resourceVersion).toBe('7');
    await c.patch(R.pods, 'default', 'p', { metadata: { labels: { a: 'b' } } }, 'merge', { subresource: 'status' });
    await c.patch(R.pods, 'default', 'p', { metadata: {} }, 'apply', { fieldManager: 'me', force: true });
    await c.updateStatus(R.pods, 'default', { metadata: { name: 'p' } });
    await c.delete(R.pods, 'default', 'p', { gracePeriodSeconds: 0 });
    await c.createSubresource(R.pods, 'default', 'p', 'binding', { target: { name: 'n1' } });
    await c.close();
    expect(seen).toEqual([
      'POST /api/v1/namespaces/default/pods application/json Bearer t0k {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}',
      'GET /api/v1/namespaces/default/pods?labelSelector=app%3Dweb&limit=500  Bearer t0k ',
      'PATCH /api/v1/namespaces/default/pods/p/status application/merge-patch+json Bearer t0k {"metadata":{"labels":{"a":"b"}}}',
      'PATCH /api/v1/namespaces/default/pods/p?fieldManager=me&force=true application/apply-patch+yaml Bearer t0k {"metadata":{}}',
      'PUT /api/v1/namespaces/default/pods/p/status application/json Bearer t0k {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}',
      'DELETE /api/v1/namespaces/default/pods/p application/json Bearer t0k {"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}',
      'POST /api/v1/namespaces/default/pods/p/binding application/json Bearer t0k {"target":{"name":"n1"}}',
    ]);
  });

  it('turns Status bodies into StatusError with code and reason; non-Status bodies get a generic reason', async () => {
    const server = await serve((req, _b, res) => {
      if (req.url?.includes('/missing')) {
        return json(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404, message: 'pods "missing" not found', details: { name: 'missing', kind: 'pods' } });
      }
      res.writeHead(409);
      res.end('nope');
    });
    const c = new RestClient({ server, qps: -1 });
    const e1 = await c.get(R.pods, 'default', 'missing').catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(StatusError);
    expect(e1).toMatchObject({ code: 404, reason: 'NotFound', message: 'pods "missing" not found' });
    const e2 = await c.update(R.pods, 'default', { metadata: { name: 'x' } }).catch((e: unknown) => e);
    expect(e2).toMatchObject({ code: 409, reason: 'Conflict' });
    await c.close();
  });

  it('retries 429 honoring Retry-After, and 5xx only for reads', async () => {
    let gets = 0;
    let posts = 0;
    const server = await serve((req, _b, res) => {
      if (req.method === 'GET') {
        gets++;
        if (gets === 1) return json(res, 429, { kind: 'Status', code: 429, reason: 'TooManyRequests', metadata: {} }, { 'retry-after': '0' });
        if (gets === 2) return json(res, 500, { kind: 'Status', code: 500, reason: 'InternalError', metadata: {} });
        return json(res, 200, { metadata: { name: 'ok' } });
      }
      posts++;
      json(res, 500, { kind: 'Status', code: 500, reason: 'InternalError', message: 'boom', metadata: {} });
    });
    const c = new RestClient({ server, qps: -1 }, { retryBackoffMs: 1 });
    expect((await c.get(R.pods, 'default', 'ok')).metadata.name).toBe('ok');
    expect(gets).toBe(3);
    await expect(c.create(R.pods, 'default', { metadata: { name: 'x' } })).rejects.toMatchObject({ code: 500, message: 'boom' });
    expect(posts).toBe(1);
    await c.close();
  });

  it('retries connection errors, then gives up', async () => {
    const c = new RestClient({ server: 'http://127.0.0.1:1', qps: -1 }, { retryBackoffMs: 1, maxRetries: 2 });
    await expect(c.get(R.pods, 'default', 'x')).rejects.toThrow();
    await c.close();
  });

  it('a request that outlives timeoutMs fails with a Timeout StatusError (504); a caller abort still wins; a watch is not cut', async () => {
    const server = await serve((req, _b, res) => {
      if (req.url?.includes('watch=true')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        // One event well after the request timeout, then the end of the stream.
        setTimeout(() => res.end(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'late', resourceVersion: '3' } } })}\n`), 400);
        return;
      }
      if (req.url?.endsWith('/fast')) return json(res, 200, { metadata: { name: 'fast' } });
      // /slow: never answers.
    });
    const c = new RestClient({ server, qps: -1, timeoutMs: 150 });
    const t0 = Date.now();
    const err = await c.get(R.pods, 'default', 'slow').catch((e: unknown) => e);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(err).toBeInstanceOf(StatusError);
    expect(err).toMatchObject({ code: 504, reason: 'Timeout', message: 'GET /api/v1/namespaces/default/pods/slow: the client timed out after 150ms' });
    // Answered requests release their deadline: none of these is aborted later.
    for (let i = 0; i < 20; i++) expect((await c.get(R.pods, 'default', 'fast')).metadata.name).toBe('fast');
    const ctrl = new AbortController();
    const aborted = c.get(R.pods, 'default', 'slow', { signal: ctrl.signal }).catch((e: unknown) => e);
    ctrl.abort(new Error('caller gave up'));
    expect(await aborted).toMatchObject({ message: 'caller gave up' });
    const names: string[] = [];
    for await (const ev of c.watch(R.pods, 'default', { resourceVersion: '1' })) names.push(ev.object.metadata.name ?? '');
    expect(names).toEqual(['late']);
    await c.close();
  });

  it('throttles with the QPS/burst bucket', async () => {
    const server = await serve((_r, _b, res) => json(res, 200, { metadata: {} }));
    const c = new RestClient({ server, qps: 20, burst: 2 });
    const t0 = Date.now();
    await Promise.all([1, 2, 3, 4].map(() => c.get(R.pods, 'default', 'x')));
    // 2 free, then 2 more at 50 ms apart.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
    await c.close();
  });

  it('watch: decodes lines across chunk boundaries, yields bookmarks, throws ERROR events as StatusError', async () => {
    let url = '';
    const server = await serve((req, _b, res) => {
      url = req.url ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      const a = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '5' } } });
      res.write(a.slice(0, 10));
      setTimeout(() => {
        res.write(`${a.slice(10)}\n{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"9"}}}\n`);
        res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version: 1 (9)' } })}\n`);
      }, 10);
    });
    const c = new RestClient({ server, qps: -1 });
    const got: string[] = [];
    let err: unknown;
    try {
      for await (const ev of c.watch(R.pods, 'default', { resourceVersion: '1', allowWatchBookmarks: true, timeoutSeconds: 300 })) {
        got.push(`${ev.type} ${ev.object.metadata.resourceVersion}`);
      }
    } catch (e) {
      err = e;
    }
    expect(url).toBe('/api/v1/namespaces/default/pods?resourceVersion=1&watch=true&allowWatchBookmarks=true&timeoutSeconds=300');
    expect(got).toEqual(['ADDED 5', 'BOOKMARK 9']);
    expect(err).toBeInstanceOf(StatusError);
    expect(err).toMatchObject({ code: 410, reason: 'Expired' });
    await c.close();
  });

  it('watch: HTTP errors throw; abort ends quietly; a silent stream trips the idle deadline', async () => {
    const server = await serve((req, _b, res) => {
      if (req.url?.includes('resourceVersion=1&')) {
        return json(res, 410, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410, message: 'too old' });
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('\n');
      // then silence
    });
    const c = new RestClient({ server, qps: -1 });
    const iterate = async (opts: Parameters<RestClient['watch']>[2]) => {
      for await (const _ of c.watch(R.pods, undefined, opts)) void _;
    };
    await expect(iterate({ resourceVersion: '1' })).rejects.toMatchObject({ code: 410 });
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 50);
    await expect(iterate({ resourceVersion: '2', signal: ctrl.signal })).resolves.toBeUndefined();
    await expect(iterate({ resourceVersion: '2', idleTimeoutMs: 100 })).rejects.toBeInstanceOf(WatchIdleTimeoutError);
    await c.close();
  });
});
