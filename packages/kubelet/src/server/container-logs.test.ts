// The kubelet API's /containerLogs as the apiserver (or curl with a client certificate) sees it: an in-process
// secure port with Webhook authorization against a stub SubjectAccessReview endpoint, in front of emulated pods
// whose lifecycles run on the real clock (short sleeps keep it quick).
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod, PodSpec } from '@kemu/api';
import { newMetricsRegistry, parseFlags, realClock, silentLogger, startHealthServer, type HealthServer } from '@kemu/base';
import { waitFor } from '@kemu/base/testing/processes';
import { freePort } from '@kemu/base/testing/ports';
import { RestClient, kubeletSecureServing, kubeletServingFlags } from '@kemu/client';
import { FakeReviewer } from '@kemu/client/testing/fake-reviewer';
import { httpsGet } from '@kemu/client/testing/https-get';
import { PodLifecycle, type LifecycleEnv } from '../pods/lifecycle.ts';
import { driveOnRealClock } from '../pods/testing.ts';
import { kubeletRoutes, podNodeOf, type LoggedPod } from './container-logs.ts';

const FLAGS = {
  'bind-address': { type: 'string', default: '127.0.0.1', usage: '' },
  'secure-port': { type: 'int', default: 1, usage: '' },
  ...kubeletServingFlags(),
} as const;

const TOKEN = 'apiserver-token';
let reviewer: FakeReviewer;
let server: HealthServer;
const pods = new Map<string, LoggedPod>();
const timers = new Set<NodeJS.Timeout>();

let ids = 0;
const env = (pullMs = 0): LifecycleEnv => ({ imagePullMs: pullMs, hasImage: () => pullMs === 0, imagePulled: () => undefined, newContainerID: () => `kemu://${++ids}` });

/** Runs a pod on the real clock, as a PodWorker would. */
function start(name: string, spec: PodSpec, pullMs = 0): PodLifecycle {
  const lc = new PodLifecycle({ name, namespace: 'default', uid: name }, spec, undefined, env(pullMs), realClock.now());
  driveOnRealClock(lc, timers);
  const current: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: name }, spec };
  pods.set(`default/${name}`, { current, lifecycle: lc });
  return lc;
}

const sh = (script: string, restartPolicy: PodSpec['restartPolicy'] = 'Never'): PodSpec => ({ restartPolicy, containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', script] }] });

const get = (path: string, token: string | undefined = TOKEN) => httpsGet(`https://127.0.0.1:${server.port}${path}`, token ? { token } : {});

/** A streamed GET: the body's chunks with when each arrived. */
function stream(path: string): Promise<{ status: number; chunks: { at: number; text: string }[] }> {
  return new Promise((resolve, reject) => {
    const req = https.get(`https://127.0.0.1:${server.port}${path}`, { rejectUnauthorized: false, headers: { authorization: `Bearer ${TOKEN}` }, agent: false }, (res) => {
      const chunks: { at: number; text: string }[] = [];
      res.setEncoding('utf8');
      res.on('data', (d: string) => chunks.push({ at: Date.now(), text: d }));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, chunks }));
    });
    req.on('error', reject);
  });
}

beforeAll(async () => {
  reviewer = await new FakeReviewer().start();
  reviewer.tokens.set(TOKEN, { username: 'kube-apiserver-kubelet-client', groups: ['kubelet-api-admin'] });
  reviewer.sar = (spec) => ({ allowed: spec.user === 'kube-apiserver-kubelet-client' });
  const flags = parseFlags(FLAGS, ['--cert-dir=', '--authorization-mode=Webhook', '--authentication-token-webhook']);
  const findPod = (ns: string, name: string) => pods.get(`${ns}/${name}`);
  const nodeFor = (path: string) => podNodeOf(path, findPod);
  const serving = await kubeletSecureServing(flags, { nodeName: 'worker-0', hostname: 'worker-0', client: new RestClient({ server: reviewer.url }), logger: silentLogger(), nodeFor });
  const routes = kubeletRoutes({ findPod, clock: realClock, logger: silentLogger() });
  server = (await startHealthServer({ bindAddress: '127.0.0.1', port: await freePort(), checks: {}, registry: newMetricsRegistry(), routes, ...serving }))!;
});

afterAll(async () => {
  for (const t of timers) clearTimeout(t);
  await server.close();
  await reviewer.stop();
});

describe('GET /containerLogs', () => {
  it('the busybox loop: three lines, timestamps 200 ms apart, tailLines, sinceTime, limitBytes', async () => {
    const lc = start('loop', sh('for i in 1 2 3; do echo hello $i; sleep 0.2; done'));
    await waitFor('the pod to complete', () => lc.finished(), 5000);
    expect(lc.phase()).toBe('Succeeded');
    const all = await get('/containerLogs/default/loop/c');
    expect([all.status, all.type, all.body]).toEqual([200, 'text/plain; charset=utf-8', 'hello 1\nhello 2\nhello 3\n']);

    const ts = (await get('/containerLogs/default/loop/c?timestamps=true')).body.trim().split('\n');
    expect(ts.map((l) => l.replace(/^\S+ /, ''))).toEqual(['hello 1', 'hello 2', 'hello 3']);
    expect(ts[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}000000Z hello 1$/);
    const times = ts.map((l) => Date.parse(l.split(' ')[0] ?? ''));
    expect([(times[1] ?? 0) - (times[0] ?? 0), (times[2] ?? 0) - (times[1] ?? 0)]).toEqual([200, 200]);

    expect((await get('/containerLogs/default/loop/c?tailLines=1')).body).toBe('hello 3\n');
    expect((await get('/containerLogs/default/loop/c?tail=2')).body).toBe('hello 2\nhello 3\n');
    const second = new Date(times[1] ?? 0).toISOString().replace(/\.\d+Z$/, 'Z');
    expect((await get(`/containerLogs/default/loop/c?sinceTime=${second}`)).body).toContain('hello 3\n');
    expect((await get('/containerLogs/default/loop/c?sinceSeconds=3600')).body).toBe('hello 1\nhello 2\nhello 3\n');
    expect((await get('/containerLogs/default/loop/c?limitBytes=10')).body).toBe('hello 1\nhe');
  });

  it('follow streams lines as they are written and ends when the container exits', async () => {
    start('follow', sh('echo one; sleep 0.4; echo two >&2; sleep 0.4; echo three; exit 3'));
    const begun = Date.now();
    const r = await stream('/containerLogs/default/follow/c?follow=true');
    expect(r.status).toBe(200);
    expect(r.chunks.map((c) => c.text).join('')).toBe('one\ntwo\nthree\n');
    const three = r.chunks.find((c) => c.text.includes('three'));
    expect((three?.at ?? 0) - begun).toBeGreaterThanOrEqual(700);
    expect(r.chunks.length).toBeGreaterThanOrEqual(2);
  });

  it('previous reads the instance before the restart; errors are as the kubelet writes them', async () => {
    const lc = start('crash', sh('echo boom; exit 1', 'Always'));
    await waitFor('a restart', () => (lc.containers[0]?.restartCount ?? 0) >= 1 && lc.containers[0]?.state.kind === 'waiting', 5000);
    expect(lc.containers[0]?.state).toMatchObject({ kind: 'waiting', reason: 'CrashLoopBackOff' });
    expect((await get('/containerLogs/default/crash/c')).body).toBe('boom\n');
    expect((await get('/containerLogs/default/crash/c?previous=true')).body).toBe('boom\n');

    const loop = start('fresh', sh('echo up; sleep 30'));
    await waitFor('it to run', () => loop.containers[0]?.state.kind === 'running', 5000);
    const prev = await get('/containerLogs/default/fresh/c?previous=true');
    expect([prev.status, prev.body]).toEqual([400, 'previous terminated container "c" in pod "fresh" not found']);

    start('pulling', sh('echo hi'), 60_000);
    const waiting = await get('/containerLogs/default/pulling/c');
    expect([waiting.status, waiting.type, waiting.body]).toEqual([400, 'text/plain; charset=utf-8', 'container "c" in pod "pulling" is waiting to start: ContainerCreating']);

    const none = await get('/containerLogs/default/nope/c');
    expect([none.status, none.body]).toEqual([404, 'pod "nope" does not exist']);
    const noContainer = await get('/containerLogs/default/fresh/other');
    expect([noContainer.status, noContainer.body]).toEqual([404, 'container "other" not found in pod "fresh"']);
    const bad = await get('/containerLogs/default/fresh/c?tailLines=x');
    expect([bad.status, bad.body]).toEqual([400, '{"message": "Unable to decode query."}']);
    const invalid = await get('/containerLogs/default/fresh/c?limitBytes=0');
    expect([invalid.status, invalid.body]).toEqual([422, '{"message": "Invalid request."}']);
  });

  it('an identity without nodes/proxy gets 403 as the kubelet writes it', async () => {
    const anon = await get('/containerLogs/default/loop/c', '');
    expect([anon.status, anon.body]).toEqual([403, 'Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource=proxy)']);
    expect(reviewer.accessReviews.at(-1)).toMatchObject({ resourceAttributes: { verb: 'get', resource: 'nodes', subresource: 'proxy', name: 'worker-0' } });
    // One process emulates several nodes: the review names the node of the pod asked about.
    start('elsewhere', { ...sh('echo hi'), nodeName: 'worker-3' });
    expect((await get('/containerLogs/default/elsewhere/c', '')).body).toBe('Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource=proxy)');
    expect(reviewer.accessReviews.at(-1)).toMatchObject({ resourceAttributes: { subresource: 'proxy', name: 'worker-3' } });
  });
});
