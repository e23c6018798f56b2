// Custom resources through the REST API (fastify.inject): a CRD is served once its watch event reaches the
// cache — routes, discovery (legacy and aggregated) with short names and categories — and its objects are
// created, read, listed with selectors, patched (merge and JSON; strategic merge refused with Kubernetes' 415),
// printed with the version's columns and deleted; the status subresource keeps spec and status apart; deleting
// the CRD deletes its objects and ends its watches.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { KubeObject } from '@kemu/api';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { injectClient, until as waitFor, type Body } from '../testing/inject-client.ts';
import { CRDS, createCrd } from '../testing/crd.ts';

const CT = '/apis/stable.example.com/v1/namespaces/default/crontabs';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
let srv: ApiServer;
const call = injectClient<KubeObject & Body>(() => srv);

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' }, image: { type: 'string' }, replicas: { type: 'integer' } } }, status: { type: 'object', x: 1, properties: { lastScheduleTime: { type: 'string' } } } } } },
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      },
    ],
  },
};
const ct = (name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}) => ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name, labels }, spec });

beforeAll(async () => {
  srv = await startMemoryApiServer();
  delete (crd.spec.versions[0]!.schema.openAPIV3Schema.properties.status as Record<string, unknown>).x;
  await createCrd(call, crd, CT);
});
afterAll(async () => srv?.close());

describe('custom resources', () => {
  it('are in discovery, legacy and aggregated, with short names, categories and the status subresource', async () => {
    const list = await call('GET', '/apis/stable.example.com/v1');
    expect(list.status).toBe(200);
    expect(list.body.resources).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'crontabs', kind: 'CronTab', namespaced: true, shortNames: ['ct'], categories: ['all'] }), expect.objectContaining({ name: 'crontabs/status' })]),
    );
    const agg = await call('GET', '/apis', undefined, 'application/json', AGGREGATED);
    const group = (agg.body.items as { metadata: { name: string }; versions: { version: string; resources: { resource: string }[] }[] }[]).find((g) => g.metadata.name === 'stable.example.com');
    expect(group?.versions[0]?.resources.map((r) => r.resource)).toEqual(['crontabs']);
  });

  it('are created, read, listed with label and field selectors, and patched with merge and JSON patches', async () => {
    expect((await call('POST', CT, ct('a', { cronSpec: '* * * * */5', image: 'my-awesome-cron-image', replicas: 1 }, { tier: 'x' }))).status).toBe(201);
    const b = await call('POST', CT, ct('b', { cronSpec: '0 * * * *', image: 'img' }));
    expect(b.status).toBe(201);
    expect(b.body.metadata.generation).toBe(1);
    expect((await call('GET', `${CT}/a`)).body.spec).toEqual({ cronSpec: '* * * * */5', image: 'my-awesome-cron-image', replicas: 1 });
    const byLabel = await call('GET', `${CT}?labelSelector=tier%3Dx`);
    expect(byLabel.body.kind).toBe('CronTabList');
    expect(byLabel.body.items.map((i: KubeObject) => i.metadata.name)).toEqual(['a']);
    const byField = await call('GET', `${CT}?fieldSelector=metadata.name%3Db`);
    expect(byField.body.items.map((i: KubeObject) => i.metadata.name)).toEqual(['b']);
    const merged = await call('PATCH', `${CT}/a`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(merged.body.spec.replicas).toBe(3);
    expect(merged.body.metadata.generation).toBe(2);
    const json = await call('PATCH', `${CT}/a`, [{ op: 'replace', path: '/spec/image', value: 'other' }], 'application/json-patch+json');
    expect(json.body.spec.image).toBe('other');
    const smp = await call('PATCH', `${CT}/a`, { spec: { replicas: 4 } }, 'application/strategic-merge-patch+json');
    expect(smp.status).toBe(415);
    expect(smp.body.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('print the version columns in Tables', async () => {
    const t = await call('GET', CT, undefined, 'application/json', TABLE);
    expect(t.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Spec', 'Replicas', 'Age']);
    const row = t.body.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'b');
    expect(row.cells.slice(0, 3)).toEqual(['b', '0 * * * *', null]);
    expect(row.cells[3]).toMatch(/^\d+s$/);
  });

  it('keep status out of main-resource writes and spec out of /status writes', async () => {
    const cur = (await call('GET', `${CT}/b`)).body;
    const st = await call('PUT', `${CT}/b/status`, { ...cur, spec: { cronSpec: 'changed' }, status: { lastScheduleTime: 'now' } });
    expect(st.status, JSON.stringify(st.body)).toBe(200);
    expect(st.body.status).toEqual({ lastScheduleTime: 'now' });
    expect(st.body.spec.cronSpec).toBe('0 * * * *');
    const main = await call('PATCH', `${CT}/b`, { status: { lastScheduleTime: 'ignored' } }, 'application/merge-patch+json');
    expect(main.body.status).toEqual({ lastScheduleTime: 'now' });
  });

  it("are validated against the version's schema, with Kubernetes' messages", async () => {
    const bad = await call('POST', CT, ct('bad', { cronSpec: 1, replicas: 'three' }));
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(
      'CronTab.stable.example.com "bad" is invalid: [spec.cronSpec: Invalid value: "integer": spec.cronSpec in body must be of type string: "integer", spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"]',
    );
    expect(bad.body.details.causes[1]).toEqual({ reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"' });
  });

  it('are deleted', async () => {
    expect((await call('DELETE', `${CT}/a`)).status).toBe(200);
    expect((await call('GET', `${CT}/a`)).status).toBe(404);
  });

  it('go first when their CRD is deleted (customresourcecleanup finalizer), then the CRD and its routes', async () => {
    expect((await call('GET', `${CT}/b`)).status).toBe(200);
    // A watch on the resource ends when the CRD goes (after the objects' DELETED events), as in Kubernetes.
    const watching = srv.app.inject({ method: 'GET', url: `${CT}?watch=true&timeoutSeconds=60` });
    await waitFor(async () => srv.ctx.hub.count() > 0);
    const del = await call('DELETE', `${CRDS}/crontabs.stable.example.com`);
    expect(del.status).toBe(200);
    expect(del.body.metadata.finalizers).toContain('customresourcecleanup.apiextensions.k8s.io');
    expect(del.body.metadata.deletionTimestamp).toBeDefined();
    await waitFor(async () => (await call('GET', `${CRDS}/crontabs.stable.example.com`)).status === 404);
    const events = (await watching).body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: KubeObject });
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'b'], ['DELETED', 'b']]);
    expect((await call('GET', CT)).status).toBe(404);
    expect((await call('GET', '/apis/stable.example.com/v1')).status).toBe(404);
    // Nothing of the objects is left in the store.
    const left = await srv.ctx.backend.list('/registry/crontabs.stable.example.com/');
    expect(left.items).toEqual([]);
  });

  it("serve the README tour's example CRD and CronTab, with its columns", async () => {
    const example = (f: string) => parse(readFileSync(new URL(`../../../../deploy/examples/${f}`, import.meta.url), 'utf8')) as unknown;
    expect((await call('POST', CRDS, example('crontab-crd.yaml'))).status).toBe(201);
    await waitFor(async () => (await call('GET', CT)).status === 200);
    expect((await call('POST', CT, example('crontab.yaml'))).status).toBe(201);
    const t = await call('GET', CT, undefined, 'application/json', TABLE);
    expect(t.body.rows[0].cells.slice(0, 3)).toEqual(['my-new-cron-object', '* * * * */5', 1]);
  });
});
