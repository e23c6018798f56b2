import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type http from 'node:http';
import { R } from '@kemu/api';
import { FencedWriteError, RestClient, type WriteFence } from '@kemu/client';
import { FakeApiserver } from '@kemu/client/testing/fake-apiserver';
import { realClock, silentLogger, type Clock } from '@kemu/base';
import { ServiceAccountClientBuilder, rootClientBuilder } from './client-builder.ts';

const TOKEN_PATH = /^\/api\/v1\/namespaces\/kube-system\/serviceaccounts\/([^/]+)\/token$/;

describe('ServiceAccountClientBuilder (--use-service-account-credentials)', () => {
  let api: FakeApiserver;
  let core: RestClient;
  let now: number;
  const clock: Clock = { now: () => now, sleep: realClock.sleep };
  const tokenRequests: { name: string; body: { kind?: string; spec?: { expirationSeconds?: number } } }[] = [];
  const seen: { method: string; path: string; authorization?: string; userAgent?: string }[] = [];
  let refuseNext401 = false;
  let failTokenRequests = 0;

  beforeEach(async () => {
    now = Date.parse('2026-12-03T12:00:00Z');
    tokenRequests.length = 0;
    seen.length = 0;
    api = await new FakeApiserver().start();
    api.put('/api/v1/namespaces', { metadata: { name: 'kube-system' } });
    api.intercept = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      seen.push({ method: req.method ?? '', path, authorization: req.headers.authorization, userAgent: req.headers['user-agent'] });
      const m = TOKEN_PATH.exec(path);
      if (m && req.method === 'POST' && failTokenRequests > 0) {
        failTokenRequests--;
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'boom', reason: 'InternalError', code: 500 }));
        return true;
      }
      if (m && req.method === 'POST') {
        const parsed = JSON.parse(body) as (typeof tokenRequests)[number]['body'];
        tokenRequests.push({ name: m[1] ?? '', body: parsed });
        const seconds = parsed.spec?.expirationSeconds ?? 3600;
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          kind: 'TokenRequest',
          apiVersion: 'authentication.k8s.io/v1',
          spec: parsed.spec,
          status: { token: `tok-${m[1]}-${tokenRequests.length}`, expirationTimestamp: new Date(now + seconds * 1000).toISOString() },
        }));
        return true;
      }
      if (refuseNext401 && req.headers.authorization) {
        refuseNext401 = false;
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }));
        return true;
      }
      return false;
    };
    core = new RestClient({ server: api.url, token: 'manager-token', userAgent: 'kube-controller-manager/v1.31.0' });
  });

  afterEach(async () => {
    await core.close();
    await api.stop();
  });

  const builder = () => new ServiceAccountClientBuilder({ core, clock, logger: silentLogger() });
  const podReads = () => seen.filter((s) => s.method === 'GET' && s.path === '/api/v1/namespaces/default/pods');

  it('creates the missing ServiceAccount and sends a TokenRequest token as the bearer, not the manager credentials', async () => {
    const client = await builder().client('replicaset-controller');
    expect(api.getObject('/api/v1/serviceaccounts', 'kube-system', 'replicaset-controller')?.metadata.name).toBe('replicaset-controller');
    // The ServiceAccount was created with the manager's own credentials.
    expect(seen.find((s) => s.method === 'POST' && s.path === '/api/v1/namespaces/kube-system/serviceaccounts')?.authorization).toBe('Bearer manager-token');

    await client.list(R.pods, 'default');
    expect(tokenRequests).toEqual([{ name: 'replicaset-controller', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } } }]);
    const read = podReads()[0];
    expect(read?.authorization).toBe('Bearer tok-replicaset-controller-1');
    expect(read?.userAgent).toBe('kube-controller-manager/v1.31.0/system:serviceaccount:kube-system:replicaset-controller');
    await client.close();
  });

  it('reuses the token until 80% of its lifetime has passed, then requests a new one', async () => {
    const client = await builder().client('deployment-controller');
    await client.list(R.pods, 'default');
    now += 2_879_000; // 47m59s: still within 80% of 3600 s
    await client.list(R.pods, 'default');
    expect(tokenRequests).toHaveLength(1);
    now += 2_000; // past 48 min
    await client.list(R.pods, 'default');
    expect(tokenRequests).toHaveLength(2);
    expect(podReads().map((r) => r.authorization)).toEqual([
      'Bearer tok-deployment-controller-1',
      'Bearer tok-deployment-controller-1',
      'Bearer tok-deployment-controller-2',
    ]);
    await client.close();
  });

  it('keeps an existing ServiceAccount, shares one token per ServiceAccount (each controller its own client), and drops the token on 401', async () => {
    api.put('/api/v1/serviceaccounts', { metadata: { namespace: 'kube-system', name: 'node-controller', uid: 'keep-me' } });
    const b = builder();
    const ipam = await b.client('node-controller');
    const lifecycle = await b.client('node-controller');
    expect(lifecycle).not.toBe(ipam);
    await lifecycle.list(R.pods, 'default');
    expect(seen.filter((s) => s.method === 'POST' && s.path.endsWith('/serviceaccounts'))).toHaveLength(0);
    expect(api.getObject('/api/v1/serviceaccounts', 'kube-system', 'node-controller')?.metadata.uid).toBe('keep-me');

    await ipam.list(R.pods, 'default');
    refuseNext401 = true;
    await expect(ipam.list(R.pods, 'default')).rejects.toMatchObject({ code: 401 });
    await ipam.list(R.pods, 'default');
    expect(tokenRequests.map((t) => t.name)).toEqual(['node-controller', 'node-controller']);
    expect(podReads().at(-1)?.authorization).toBe('Bearer tok-node-controller-2');
    await ipam.close();
    await lifecycle.close();
  });

  it('shares one TokenRequest among concurrent requests and retries a failed one with back-off', async () => {
    failTokenRequests = 1;
    const client = await builder().client('namespace-controller');
    await Promise.all([client.list(R.pods, 'default'), client.list(R.pods, 'default'), client.list(R.pods, 'default')]);
    const posts = seen.filter((s) => s.method === 'POST' && s.path.endsWith('/namespace-controller/token'));
    expect(posts).toHaveLength(2); // the failed one, then one success shared by all three reads
    expect(podReads().map((r) => r.authorization)).toEqual(Array(3).fill('Bearer tok-namespace-controller-1'));
    await client.close();
  });

  it("fences the controllers' writes with the manager's fence", async () => {
    const ended = new AbortController();
    ended.abort(new FencedWriteError('not the leader'));
    const fence: WriteFence = {
      lease: { namespace: 'kube-system', name: 'kube-controller-manager' },
      admit: () => {
        throw new FencedWriteError('not the leader');
      },
      nextRenewal: () => Promise.reject(new FencedWriteError('not the leader')),
      signal: ended.signal,
    };
    api.put('/api/v1/serviceaccounts', { metadata: { namespace: 'kube-system', name: 'endpoint-controller' } });
    core.fenceWrites(fence);
    const client = await builder().client('endpoint-controller');
    expect(client.writeFence).toBe(fence);
    await expect(client.create(R.pods, 'default', { metadata: { name: 'p' } })).rejects.toBeInstanceOf(FencedWriteError);
    // A fenced manager does not provision ServiceAccounts either.
    await expect(builder().client('replicaset-controller')).rejects.toBeInstanceOf(FencedWriteError);
    await client.close();
  });

  it('without the flag every controller uses the manager client', async () => {
    const b = rootClientBuilder(core);
    expect(await b.client('replicaset-controller')).toBe(core);
    expect(await b.client('node-controller')).toBe(core);
  });
});
