// pods/log against a fake kubelet (kubelet-client/testing/fake-kubelet.ts) that checks the apiserver's client
// certificate: option checks and their Status messages, container choice, a pod on no node, the query the
// kubelet gets, kubelet error statuses, follow streaming and its teardown, a kubelet that is down.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Signer } from '@kemu/pki';
import { freePort } from '@kemu/base/testing/ports';
import { makeCa } from '../authn/testing/certs.ts';
import { startFakeKubelet, clientPair, type FakeKubelet } from '../kubelet-client/testing/fake-kubelet.ts';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { kubeletErrorStatus } from './pod-log.ts';

let ca: Signer;
let kubelet: FakeKubelet;
let srv: ApiServer;
let base = '';
let deadPort = 0;

async function call(method: string, url: string, payload?: unknown, contentType = 'application/json') {
  const r = await srv.app.inject({ method: method as 'GET', url, headers: { 'content-type': contentType }, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) });
  return { status: r.statusCode, text: r.body, contentType: r.headers['content-type'], json: () => JSON.parse(r.body) as { message?: string; reason?: string; code?: number; details?: unknown } };
}

async function node(name: string, addresses: { type: string; address: string }[], port: number): Promise<void> {
  expect((await call('POST', '/api/v1/nodes', { metadata: { name } })).status).toBe(201);
  const r = await call('PATCH', `/api/v1/nodes/${name}/status`, { status: { addresses, daemonEndpoints: { kubeletEndpoint: { Port: port } } } }, 'application/merge-patch+json');
  expect(r.status).toBe(200);
}

async function pod(name: string, spec: Record<string, unknown>): Promise<void> {
  const r = await call('POST', '/api/v1/namespaces/default/pods', { metadata: { name }, spec });
  expect(r.status, r.text).toBe(201);
}

const log = (pod: string, query = '') => call('GET', `/api/v1/namespaces/default/pods/${pod}/log${query ? `?${query}` : ''}`);

beforeAll(async () => {
  ca = await makeCa('kubernetes');
  kubelet = await startFakeKubelet(ca);
  const client = await clientPair(ca, 'kube-apiserver', ['Kubernetes']);
  srv = await startMemoryApiServer({
    kubelet: { cert: Buffer.from(client.cert), key: Buffer.from(client.key), preferredAddressTypes: ['InternalIP', 'ExternalIP'], defaultPort: 10250, dialTimeoutMs: 2000 },
  });
  await srv.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(srv.app.server.address() as AddressInfo).port}`;
  deadPort = await freePort();
  await node('n1', [{ type: 'Hostname', address: 'n1' }, { type: 'InternalIP', address: '127.0.0.1' }], kubelet.port);
  await node('down', [{ type: 'InternalIP', address: '127.0.0.1' }], deadPort);
  await node('nameonly', [{ type: 'Hostname', address: 'nameonly' }], kubelet.port);
  const c = (name: string) => ({ name, image: 'busybox' });
  await pod('one', { nodeName: 'n1', containers: [c('app')] });
  await pod('two', { nodeName: 'n1', initContainers: [c('setup')], containers: [c('a'), c('b')] });
  await pod('statuses', { nodeName: 'n1', containers: [c('waiting'), c('boom'), c('forbidden'), c('short'), c('crash')] });
  await pod('pending', { containers: [c('app')] });
  await pod('unreachable', { nodeName: 'down', containers: [c('app')] });
  await pod('nameless', { nodeName: 'nameonly', containers: [c('app')] });
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await kubelet?.close();
});

describe('pods/log options', () => {
  it('refuses values that do not convert with a 400 in Go\'s words', async () => {
    const r = await log('one', 'tailLines=abc');
    expect([r.status, r.json().reason, r.json().message]).toEqual([400, 'BadRequest', 'strconv.ParseInt: parsing "abc": invalid syntax']);
    const t = await log('one', 'sinceTime=yesterday');
    expect(t.json().message).toBe('parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
  });

  it('refuses invalid PodLogOptions with a 422 as ValidatePodLogOptions words it', async () => {
    const cases: [string, string][] = [
      ['tailLines=-1', 'PodLogOptions "one" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'],
      ['limitBytes=0', 'PodLogOptions "one" is invalid: limitBytes: Invalid value: 0: must be greater than 0'],
      ['sinceSeconds=0', 'PodLogOptions "one" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'],
      ['sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z', 'PodLogOptions "one" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified'],
      ['tailLines=-1&limitBytes=-2', 'PodLogOptions "one" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: -2: must be greater than 0]'],
    ];
    for (const [q, message] of cases) {
      const r = await log('one', q);
      expect([r.status, r.json().reason, r.json().message], q).toEqual([422, 'Invalid', message]);
    }
    // Options are checked before the pod is read.
    expect((await log('nosuchpod', 'tailLines=-1')).status).toBe(422);
    expect((await log('nosuchpod')).json().message).toBe('pods "nosuchpod" not found');
  });
});

describe('pods/log container and location', () => {
  it('picks the only container, and asks for a name among all of them otherwise', async () => {
    expect((await log('one')).status).toBe(200);
    const r = await log('two');
    expect([r.status, r.json().message]).toEqual([400, 'a container name must be specified for pod two, choose one of: [setup a b]']);
    expect((await log('two', 'container=x')).json().message).toBe('container x is not valid for pod two');
    expect((await log('two', 'container=setup')).status).toBe(200);
  });

  it('answers 204 with no body for a pod on no node, as Kubernetes\' null stream', async () => {
    const r = await log('pending');
    expect([r.status, r.text]).toEqual([204, '']);
  });

  it('passes the options to the kubelet (sorted, sinceTime to the second in UTC) with its client certificate, and returns text/plain', async () => {
    const r = await log('two', 'container=b&timestamps=true&tailLines=5&limitBytes=100&sinceTime=2026-01-02T03:04:05.5%2B01:00&previous=1&insecureSkipTLSVerifyBackend=true');
    expect(r.status).toBe(200);
    expect(r.contentType).toBe('text/plain');
    expect(r.text).toBe('query=limitBytes=100&previous=true&sinceTime=2026-01-02T02%3A04%3A05Z&tailLines=5&timestamps=true\ncn=kube-apiserver\n');
    expect(kubelet.requests.at(-1)).toMatch(/^\/containerLogs\/default\/two\/b\?/);
    expect((await log('one', 'sinceSeconds=30&follow=false')).text).toBe('query=sinceSeconds=30\ncn=kube-apiserver\n');
  });

  it('turns kubelet errors into the Statuses kube-apiserver makes of them', async () => {
    const w = await log('statuses', 'container=waiting');
    expect([w.status, w.json().reason, w.json().message]).toEqual([400, 'BadRequest', 'container "waiting" in pod "statuses" is waiting to start: ContainerCreating']);
    const b = await log('statuses', 'container=boom');
    expect([b.status, b.json().reason, b.json().message]).toEqual([500, 'InternalError', 'Internal error occurred: boom']);
    const f = await log('statuses', 'container=forbidden');
    expect(f.json()).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: 'Forbidden (user=kube-apiserver, verb=get, resource=nodes, subresource=proxy) ( pods/log statuses)',
      details: { name: 'statuses', kind: 'pods/log' },
    });
  });

  it('words the other kubelet statuses as NewGenericServerResponse does', () => {
    const msg = (code: number, body = 'x') => kubeletErrorStatus(code, body, 'p');
    expect(msg(404, '404 page not found\n')).toMatchObject({ code: 404, reason: 'NotFound', message: 'the server could not find the requested resource ( pods/log p)' });
    expect(msg(401, 'Unauthorized')).toMatchObject({ reason: 'Unauthorized', message: 'the server has asked for the client to provide credentials ( pods/log p)' });
    expect(msg(503)).toMatchObject({ reason: 'ServiceUnavailable', message: 'the server is currently unable to handle the request ( pods/log p)' });
    expect(msg(502, 'bad gateway')).toMatchObject({ reason: 'InternalError', message: 'an error on the server ("bad gateway") has prevented the request from succeeding ( pods/log p)' });
    expect(msg(418)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 418, message: 'the server responded with the status code 418 but did not return more information ( pods/log p)', details: { name: 'p', kind: 'pods/log' } });
  });

  it('is a 500 with Go\'s dial error when the kubelet is down, and with NoMatchError\'s text when no address fits', async () => {
    const r = await log('unreachable');
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Get "https://127.0.0.1:${deadPort}/containerLogs/default/unreachable/app": dial tcp 127.0.0.1:${deadPort}: connect: connection refused`,
      code: 500,
    });
    expect((await log('nameless')).json().message).toBe('no preferred addresses found; known addresses: [{Hostname nameonly}]');
  });
});

/** A follow on its own connection: the status, what arrived so far, and whether it ended. */
function follow(pod: string, query = ''): Promise<{ status: number; body: () => string; ended: Promise<void>; abort(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/api/v1/namespaces/default/pods/${pod}/log?follow=true${query}`, { agent: new http.Agent({ keepAlive: false }) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      resolve({ status: res.statusCode ?? 0, body: () => text, ended: new Promise((done) => res.on('end', () => done())), abort: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('pods/log?follow=true', () => {
  it('streams the kubelet\'s lines as they come, and closes the kubelet connection when the client goes', async () => {
    const closedBefore = kubelet.closedFollows;
    const f = await follow('one');
    expect(f.status).toBe(200);
    await until('three lines', () => f.body().split('\n').length > 3);
    expect(f.body()).toMatch(/^line 1\nline 2\nline 3\n/);
    expect(kubelet.openFollows).toBe(1);
    f.abort();
    await until('the kubelet stream closed', () => kubelet.closedFollows === closedBefore + 1);
    expect(kubelet.openFollows).toBe(0);
  });

  it('ends when the kubelet ends the stream, or when its connection breaks', async () => {
    const f = await follow('statuses', '&container=short');
    await f.ended;
    expect(f.body()).toBe('one\ntwo\n');
    const broken = await follow('statuses', '&container=crash');
    await broken.ended;
    expect(broken.body()).toBe('partial\n');
  });
});

describe('kubectl logs', () => {
  let dir = '';
  let env: NodeJS.ProcessEnv = {};
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-pod-log-'));
    fs.mkdirSync(path.join(dir, 'home'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters: [{name: k, cluster: {server: "${base}"}}]\ncontexts: [{name: k, context: {cluster: k, namespace: default}}]\ncurrent-context: k\n`);
    env = { ...process.env, HOME: path.join(dir, 'home'), KUBECONFIG: kubeconfig };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const kubectl = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('kubectl', args, { env, timeout: 30_000 }, (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr })),
    );

  it('prints the kubelet\'s text, the kubelet\'s refusals and a kubelet that is down as Error from server, nothing for a pod on no node', async () => {
    expect(await kubectl('logs', 'one', '--tail=3', '--timestamps')).toEqual({ code: 0, stdout: 'query=tailLines=3&timestamps=true\ncn=kube-apiserver\n', stderr: '' });
    const w = await kubectl('logs', 'statuses', '-c', 'waiting');
    expect([w.code, w.stderr]).toEqual([1, 'Error from server (BadRequest): container "waiting" in pod "statuses" is waiting to start: ContainerCreating\n']);
    expect(await kubectl('logs', 'pending')).toEqual({ code: 0, stdout: '', stderr: '' });
    const down = await kubectl('logs', 'unreachable');
    expect(down.stderr).toBe(`Error from server: Get "https://127.0.0.1:${deadPort}/containerLogs/default/unreachable/app": dial tcp 127.0.0.1:${deadPort}: connect: connection refused\n`);
  });

  it('-f prints lines as they come until it is stopped, and the kubelet stream closes', async () => {
    const closedBefore = kubelet.closedFollows;
    const child = spawn('kubectl', ['logs', '-f', 'one'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await until('kubectl printed two lines', () => out.startsWith('line 1\nline 2\n'), 20_000);
    } finally {
      child.kill('SIGINT');
    }
    await until('the kubelet stream closed', () => kubelet.closedFollows === closedBefore + 1);
  }, 30_000);
});
