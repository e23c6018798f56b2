// A custom resource whose conversion strategy is Webhook, served through a real HTTPS conversion webhook
// (v1beta1 spec.cronSpec <-> v1 spec.schedule.expression, v1 stored): every request converts at the REST
// boundary — writes to the storage version and back, reads and lists (one review per list), watches event by
// event — and a webhook that fails answers 500 with Kubernetes' text.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { injectClient, until, type Body } from '../testing/inject-client.ts';
import { CRDS, createCrd, crdObject } from '../testing/crd.ts';
import { cronTabConverter, startConversionWebhookServer, type ConversionRequest, type ConversionWebhookServer } from '../testing/webhook-server.ts';

const GROUP = 'stable.example.com';
const at = (v: string, name = '', group = GROUP, plural = 'crontabs') => `/apis/${group}/${v}/namespaces/default/${plural}${name ? `/${name}` : ''}`;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
let srv: ApiServer;
let hook: ConversionWebhookServer;
let deadPort = 0;
/** Answers the review instead of converting, when set (bad replies). */
let badReply: ((r: ConversionRequest) => unknown) | undefined;
const call = injectClient<Body>(() => srv);

const str = { type: 'string' };
const int = { type: 'integer' };
const schemaOf = (spec: Record<string, unknown>) => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: { ...spec, replicas: int } }, status: { type: 'object', properties: { replicas: int } } },
});
const subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } };
const beta = { name: 'v1beta1', served: true, storage: false, subresources, schema: { openAPIV3Schema: schemaOf({ cronSpec: str }) }, additionalPrinterColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }] };
const v1 = { name: 'v1', served: true, storage: true, subresources, schema: { openAPIV3Schema: schemaOf({ schedule: { type: 'object', properties: { expression: str } } }) } };
const crdFor = (group: string, plural: string, kind: string, url: string, caBundle: string) =>
  crdObject({
    group,
    names: { plural, kind },
    versions: [beta, v1],
    spec: { conversion: { strategy: 'Webhook', webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ['v1'] } } },
  });
const tab = (v: string, name: string, spec: Record<string, unknown>, kind = 'CronTab', group = GROUP) => ({ apiVersion: `${group}/${v}`, kind, metadata: { name }, spec });
const stored = async (name: string, plural = 'crontabs', group = GROUP) => JSON.parse((await srv.ctx.backend.get(`/registry/${plural}.${group}/default/${name}`))?.value ?? '{}') as Body;
const reviews = () => hook.requests.length;
const watchEvents = (body: string) =>
  body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; object: Body });

beforeAll(async () => {
  hook = await startConversionWebhookServer(cronTabConverter, { reply: (r) => (badReply ? badReply(r) : undefined) });
  const dead = await startConversionWebhookServer(cronTabConverter);
  deadPort = dead.port;
  await dead.close();
  srv = await startMemoryApiServer();
  await createCrd(call, crdFor(GROUP, 'crontabs', 'CronTab', hook.url('/convert'), hook.caBundle), at('v1beta1'));
  await createCrd(call, crdFor('dead.example.com', 'deadtabs', 'DeadTab', `https://127.0.0.1:${deadPort}/convert`, hook.caBundle), at('v1', '', 'dead.example.com', 'deadtabs'));
});
afterAll(async () => {
  await srv?.close();
  await hook?.close();
});

describe('webhook conversion', () => {
  it('a create in v1beta1 is stored converted to v1 and answered in v1beta1; reads convert to the version asked for', async () => {
    const before = reviews();
    const created = await call('POST', at('v1beta1'), tab('v1beta1', 'a', { cronSpec: '*/5 * * * *', replicas: 1 }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: `${GROUP}/v1beta1`, spec: { cronSpec: '*/5 * * * *', replicas: 1 } });
    expect(created.body.metadata.resourceVersion).toMatch(/^\d+$/);
    const s = await stored('a');
    expect(s.apiVersion).toBe(`${GROUP}/v1`);
    expect(s.spec).toEqual({ schedule: { expression: '*/5 * * * *' }, replicas: 1 });
    // To the storage version, then the stored object back to the request version.
    expect(hook.requests.slice(before).map((q) => q.request.desiredAPIVersion)).toEqual([`${GROUP}/v1`, `${GROUP}/v1beta1`]);
    expect(hook.requests[before]?.path).toBe('/convert?timeout=30s');

    const n = reviews();
    const viaV1 = await call('GET', at('v1', 'a'));
    expect(viaV1.body).toMatchObject({ apiVersion: `${GROUP}/v1`, spec: { schedule: { expression: '*/5 * * * *' } } });
    expect(reviews()).toBe(n); // stored in v1: nothing to convert
    const viaBeta = await call('GET', at('v1beta1', 'a'));
    expect(viaBeta.body).toMatchObject({ apiVersion: `${GROUP}/v1beta1`, spec: { cronSpec: '*/5 * * * *' } });
    expect(viaBeta.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    const cached = await call('GET', `${at('v1beta1', 'a')}?resourceVersion=0`);
    expect(cached.body.spec).toEqual({ cronSpec: '*/5 * * * *', replicas: 1 });
    expect(reviews()).toBe(n + 2);
  });

  it('an update through v1 is read through v1beta1; a patch through v1beta1 applies to the converted object', async () => {
    const cur = (await call('GET', at('v1', 'a'))).body;
    const put = await call('PUT', at('v1', 'a'), { ...cur, spec: { schedule: { expression: '0 * * * *' }, replicas: 2 } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await call('GET', at('v1beta1', 'a'))).body.spec).toEqual({ cronSpec: '0 * * * *', replicas: 2 });
    const patched = await call('PATCH', at('v1beta1', 'a'), { spec: { cronSpec: '1 * * * *' } }, 'application/merge-patch+json');
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ apiVersion: `${GROUP}/v1beta1`, spec: { cronSpec: '1 * * * *', replicas: 2 } });
    expect((await stored('a')).spec).toEqual({ schedule: { expression: '1 * * * *' }, replicas: 2 });
    const applied = await call(
      'PATCH',
      `${at('v1beta1', 'a')}?fieldManager=test&force=true`,
      { apiVersion: `${GROUP}/v1beta1`, kind: 'CronTab', metadata: { name: 'a' }, spec: { cronSpec: '2 * * * *' } },
      'application/apply-patch+yaml',
    );
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.spec).toEqual({ cronSpec: '2 * * * *', replicas: 2 });
    expect((await stored('a')).spec).toEqual({ schedule: { expression: '2 * * * *' }, replicas: 2 });
  });

  it('/status and /scale through v1beta1 write the stored object converted', async () => {
    const cur = (await call('GET', at('v1beta1', 'a'))).body;
    const status = await call('PUT', `${at('v1beta1', 'a')}/status`, { ...cur, status: { replicas: 3 } });
    expect(status.status, JSON.stringify(status.body)).toBe(200);
    expect(status.body).toMatchObject({ apiVersion: `${GROUP}/v1beta1`, spec: { cronSpec: '2 * * * *' }, status: { replicas: 3 } });
    const scale = await call('GET', `${at('v1beta1', 'a')}/scale`);
    expect(scale.body).toMatchObject({ kind: 'Scale', spec: { replicas: 2 }, status: { replicas: 3 } });
    const scaled = await call('PATCH', `${at('v1beta1', 'a')}/scale`, { spec: { replicas: 4 } }, 'application/merge-patch+json');
    expect(scaled.status, JSON.stringify(scaled.body)).toBe(200);
    expect(scaled.body.spec.replicas).toBe(4);
    const s = await stored('a');
    expect([s.apiVersion, s.spec, s.status]).toEqual([`${GROUP}/v1`, { schedule: { expression: '2 * * * *' }, replicas: 4 }, { replicas: 3 }]);
  });

  it('a list converts its items in one review, from the store, the cache and as a Table', async () => {
    for (const name of ['b', 'c']) expect((await call('POST', at('v1'), tab('v1', name, { schedule: { expression: `${name} x` } }))).status).toBe(201);
    for (const q of ['', '?resourceVersion=0', '?limit=10']) {
      const n = reviews();
      const list = await call('GET', `${at('v1beta1')}${q}`);
      expect(list.body.kind).toBe('CronTabList');
      expect(list.body.items.map((i: Body) => [i.apiVersion, i.spec.cronSpec])).toEqual([
        [`${GROUP}/v1beta1`, '2 * * * *'],
        [`${GROUP}/v1beta1`, 'b x'],
        [`${GROUP}/v1beta1`, 'c x'],
      ]);
      expect(reviews(), q).toBe(n + 1);
      expect(hook.requests.at(-1)?.request.objects).toHaveLength(3);
    }
    const table = await call('GET', at('v1beta1'), undefined, 'application/json', TABLE);
    expect(table.body.columnDefinitions.map((c: Body) => c.name)).toEqual(['Name', 'Spec']);
    expect(table.body.rows.map((r: Body) => r.cells.slice(0, 2))).toEqual([
      ['a', '2 * * * *'],
      ['b', 'b x'],
      ['c', 'c x'],
    ]);
  });

  it('a watch in v1beta1 sees every event converted, in order', async () => {
    const rv = (await call('GET', at('v1')).then((r) => r.body.metadata.resourceVersion)) as string;
    expect((await call('POST', at('v1'), tab('v1', 'w', { schedule: { expression: 'w1' } }))).status).toBe(201);
    expect((await call('PATCH', at('v1', 'w'), { spec: { schedule: { expression: 'w2' } } }, 'application/merge-patch+json')).status).toBe(200);
    expect((await call('DELETE', at('v1', 'w'))).status).toBe(200);
    const r = await srv.app.inject({ method: 'GET', url: `${at('v1beta1')}?watch=true&resourceVersion=${rv}&timeoutSeconds=1` });
    expect(watchEvents(r.body).map((e) => [e.type, e.object.apiVersion, e.object.metadata.name, e.object.spec])).toEqual([
      ['ADDED', `${GROUP}/v1beta1`, 'w', { cronSpec: 'w1' }],
      ['MODIFIED', `${GROUP}/v1beta1`, 'w', { cronSpec: 'w2' }],
      ['DELETED', `${GROUP}/v1beta1`, 'w', { cronSpec: 'w2' }],
    ]);
    const t = await srv.app.inject({ method: 'GET', url: `${at('v1beta1')}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`, headers: { accept: TABLE } });
    const rows = watchEvents(t.body);
    expect(rows.map((e) => [e.type, e.object.rows[0].cells[1]])).toEqual([
      ['ADDED', 'w1'],
      ['MODIFIED', 'w2'],
      ['DELETED', 'w2'],
    ]);
    expect(rows[0]?.object.columnDefinitions.map((c: Body) => c.name)).toEqual(['Name', 'Spec']);
  });

  it('a changed definition ends the watches converting through the webhook', async () => {
    const watching = srv.app.inject({ method: 'GET', url: `${at('v1beta1')}?watch=true&timeoutSeconds=60` });
    await until(async () => srv.ctx.hub.count() > 0);
    const crd = (await call('GET', `${CRDS}/crontabs.${GROUP}`)).body;
    crd.spec.versions[0].additionalPrinterColumns.push({ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' });
    expect((await call('PUT', `${CRDS}/crontabs.${GROUP}`, crd)).status).toBe(200);
    const ended = await watching;
    expect(watchEvents(ended.body).map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED']);
  });

  it('a webhook that cannot be reached fails the request with a 500 naming the POST', async () => {
    const dead = (v: string, name = '') => at(v, name, 'dead.example.com', 'deadtabs');
    const post = `Post "https://127.0.0.1:${deadPort}/convert?timeout=30s": dial tcp 127.0.0.1:${deadPort}: connect: connection refused`;
    const refused = await call('POST', dead('v1beta1'), tab('v1beta1', 'x', { cronSpec: 'x' }, 'DeadTab', 'dead.example.com'));
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, message: `conversion webhook for dead.example.com/v1beta1, Kind=DeadTab failed: ${post}` });
    // Stored in the request version: no conversion needed.
    const rv = (await call('GET', dead('v1'))).body.metadata.resourceVersion as string;
    expect((await call('POST', dead('v1'), tab('v1', 'y', { schedule: { expression: 'y' } }, 'DeadTab', 'dead.example.com'))).status).toBe(201);
    const read = await call('GET', dead('v1beta1', 'y'));
    expect(read.status).toBe(500);
    expect(read.body.message).toBe(`conversion webhook for dead.example.com/v1, Kind=DeadTab failed: ${post}`);
    expect((await call('GET', dead('v1beta1'))).status).toBe(500);
    const w = await srv.app.inject({ method: 'GET', url: `${dead('v1beta1')}?watch=true&resourceVersion=${rv}&timeoutSeconds=5` });
    expect(w.statusCode).toBe(200);
    const events = watchEvents(w.body);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 500, message: `conversion webhook for dead.example.com/v1, Kind=DeadTab failed: ${post}` } });
    // Deleting through the stored version needs no conversion.
    expect((await call('DELETE', dead('v1', 'y'))).status).toBe(200);
  });

  it('a delete through v1beta1 answers in v1beta1; with a finalizer the object waits, converted, until it goes', async () => {
    const created = await call('POST', at('v1beta1'), { ...tab('v1beta1', 'f', { cronSpec: 'f' }), metadata: { name: 'f', finalizers: ['example.com/hold'] } });
    expect(created.status).toBe(201);
    const marked = await call('DELETE', at('v1beta1', 'f'));
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ apiVersion: `${GROUP}/v1beta1`, spec: { cronSpec: 'f' }, metadata: { finalizers: ['example.com/hold'] } });
    expect(marked.body.metadata.deletionTimestamp).toBeDefined();
    expect((await stored('f')).spec).toEqual({ schedule: { expression: 'f' } });
    const released = await call('PATCH', at('v1beta1', 'f'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    expect((await call('GET', at('v1', 'f'))).status).toBe(404);
    const gone = await call('DELETE', at('v1beta1', 'c'));
    expect(gone.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'c', group: GROUP, kind: 'crontabs' } });
  });

  it('kubectl get prints the converted columns, and the 500 of a webhook that is down', async () => {
    await srv.app.listen({ host: '127.0.0.1', port: 0 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-conv-'));
    try {
      const server = `http://127.0.0.1:${(srv.app.server.address() as AddressInfo).port}`;
      fs.writeFileSync(path.join(dir, 'kubeconfig'), `apiVersion: v1\nkind: Config\nclusters: [{name: k, cluster: {server: "${server}"}}]\ncontexts: [{name: k, context: {cluster: k, namespace: default}}]\ncurrent-context: k\n`);
      const kubectl = (...args: string[]) =>
        new Promise<{ stdout: string; stderr: string }>((resolve) =>
          execFile('kubectl', args, { env: { ...process.env, HOME: dir, KUBECONFIG: path.join(dir, 'kubeconfig') }, timeout: 30_000 }, (_err, stdout, stderr) => resolve({ stdout, stderr })),
        );
      const got = await kubectl('get', `crontabs.v1beta1.${GROUP}`);
      expect(got.stdout).toMatch(/^NAME\s+SPEC\s+REPLICAS\s*\na\s+2 \* \* \* \*\s+4\s*\nb\s+b x\s*\n$/);
      const z = await call('POST', at('v1', '', 'dead.example.com', 'deadtabs'), tab('v1', 'z', { schedule: { expression: 'z' } }, 'DeadTab', 'dead.example.com'));
      expect(z.status).toBe(201);
      const down = await kubectl('get', 'deadtabs.v1beta1.dead.example.com', 'z');
      expect(down.stderr.trim()).toBe(
        `Error from server: conversion webhook for dead.example.com/v1, Kind=DeadTab failed: Post "https://127.0.0.1:${deadPort}/convert?timeout=30s": dial tcp 127.0.0.1:${deadPort}: connect: connection refused`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("a reply with the wrong uid or apiVersion fails with Kubernetes' texts", async () => {
    try {
      badReply = () => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: 'nope', result: { status: 'Success' }, convertedObjects: [] } });
      const wrongUid = await call('GET', at('v1beta1', 'a'));
      expect(wrongUid.status).toBe(500);
      expect(wrongUid.body.message).toMatch(/^conversion webhook for stable.example.com\/v1, Kind=CronTab failed: expected response.uid="[0-9a-f-]{36}", got "nope"$/);
      badReply = (r) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: r.uid, result: { status: 'Success' }, convertedObjects: r.objects } });
      expect((await call('GET', at('v1beta1', 'a'))).body.message).toBe(
        'conversion webhook for stable.example.com/v1, Kind=CronTab returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v1beta1, received stable.example.com/v1)',
      );
      expect((await call('GET', at('v1beta1'))).body.message).toBe(
        'conversion webhook for stable.example.com/v1, Kind=CronTab returned invalid converted object at index 1: invalid groupVersion (expected stable.example.com/v1beta1, received stable.example.com/v1)',
      );
    } finally {
      badReply = undefined;
    }
  });
});
