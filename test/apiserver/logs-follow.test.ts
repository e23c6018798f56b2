// kubectl logs -f semantics: GET pods/<name>/log?follow=true stays open while the container runs and ends
// when it terminates or the pod is deleted; without follow the (empty) log is returned at once.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { R } from '@kemu/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApiserver, type InProcessApiserver } from '../support/in-process-apiserver.ts';
import { kubectlEnv } from '../support/kubectl.ts';

let apiserver: InProcessApiserver;
let url: string;

interface Follow {
  status: number;
  contentType: string | undefined;
  ended: boolean;
  body: string;
  end: Promise<void>;
  abort(): void;
}

/** Opens a follow on its own connection; resolves once the response headers have arrived. */
function follow(pod: string): Promise<Follow> {
  return new Promise((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: false });
    const req = http.get(`${url}/api/v1/namespaces/default/pods/${pod}/log?follow=true`, { agent }, (res) => {
      const f: Follow = {
        status: res.statusCode ?? 0,
        contentType: res.headers['content-type'],
        ended: false,
        body: '',
        end: new Promise((done) => res.on('end', () => ((f.ended = true), done()))),
        abort: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (c: string) => (f.body += c));
      resolve(f);
    });
    req.on('error', reject);
  });
}

async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': contentType }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, text: await res.text() };
}

async function createPod(name: string): Promise<void> {
  const r = await call('POST', '/api/v1/namespaces/default/pods', { metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  expect(r.status).toBe(201);
}

/** Another request, on another connection, that has fully completed: the follow had its chance to end. */
async function roundTrip(): Promise<void> {
  expect((await call('GET', '/api/v1/namespaces/default/pods')).status).toBe(200);
}

const podWatchers = () => apiserver.srv.ctx.cacher.cache(R.pods).watchers.size;

beforeAll(async () => {
  apiserver = await startInProcessApiserver('kemu-logs-');
  url = apiserver.url;
}, 30_000);
afterAll(async () => apiserver?.close());

describe('pods/log follow', () => {
  it('without follow returns the empty log at once', async () => {
    await createPod('once');
    const r = await call('GET', '/api/v1/namespaces/default/pods/once/log');
    expect(r).toEqual({ status: 200, text: '' });
  });

  it('follow=true on a running pod stays open and ends when the pod is deleted', async () => {
    await createPod('runner');
    const f = await follow('runner');
    expect(f.status).toBe(200);
    expect(f.contentType).toMatch(/^text\/plain/);
    await roundTrip();
    await roundTrip();
    expect(f.ended).toBe(false);
    expect((await call('DELETE', '/api/v1/namespaces/default/pods/runner', { gracePeriodSeconds: 0 })).status).toBe(200);
    await f.end;
    expect(f.body).toBe('');
  });

  it('follow ends when the container terminates', async () => {
    await createPod('worker');
    const f = await follow('worker');
    await roundTrip();
    expect(f.ended).toBe(false);
    const status = { status: { phase: 'Running', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'nginx', imageID: '', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] } };
    const p = await call('PATCH', '/api/v1/namespaces/default/pods/worker/status', status, 'application/merge-patch+json');
    expect(p.status).toBe(200);
    await f.end;
  });

  it('follow on a finished pod ends at once; a client that disconnects leaves no watcher behind', async () => {
    const done = await follow('worker');
    await done.end;
    const before = podWatchers();
    await createPod('idle');
    const f = await follow('idle');
    expect(podWatchers()).toBe(before + 1);
    f.abort();
    const deadline = Date.now() + 5_000;
    while (podWatchers() !== before && Date.now() < deadline) await roundTrip();
    expect(podWatchers()).toBe(before);
  });

  it('kubectl logs -f keeps running until the pod is deleted, then exits 0', async () => {
    await createPod('tail');
    const before = podWatchers();
    const env = kubectlEnv(apiserver.dir, apiserver.kubeconfig);
    const child = spawn('kubectl', ['logs', '-f', 'tail'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let exitedEarly = false;
    void exited.then(() => (exitedEarly = true));
    try {
      // kubectl is following once its stream has registered a pod watcher.
      const deadline = Date.now() + 20_000;
      while (podWatchers() === before && !exitedEarly && Date.now() < deadline) await roundTrip();
      expect(exitedEarly).toBe(false);
      expect(podWatchers()).toBe(before + 1);
      expect((await call('DELETE', '/api/v1/namespaces/default/pods/tail', { gracePeriodSeconds: 0 })).status).toBe(200);
      expect(await exited).toBe(0);
      expect(stderr).toBe('');
    } finally {
      if (child.exitCode === null && child.pid !== undefined) child.kill();
    }
  }, 30_000);

  it('follow on a missing pod is a 404 Status', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/pods/nope/log?follow=true');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text)).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });
});
