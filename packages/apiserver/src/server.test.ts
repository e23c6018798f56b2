// The REST surface through fastify.inject() on a MemoryBackend: discovery, version, CRUD status codes
// and Status bodies, namespace lifecycle, deletion semantics.
import { MemoryBackend } from '@kemu/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApiServer } from './testing/memory-server.ts';
import type { ApiServer } from './server.ts';

let srv: ApiServer;

beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv.close());

const inject = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
  srv.app.inject({
    method: method as 'GET',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

describe('discovery and version', () => {
  it('serves /version with minor 31 and no-cache', async () => {
    const r = await inject('GET', '/version');
    expect(r.statusCode).toBe(200);
    expect(r.headers['cache-control']).toBe('no-cache, private');
    expect(r.json()).toMatchObject({ major: '1', minor: '31' });
  });
  it('serves aggregated discovery with its exact media type', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const r = await inject('GET', '/apis', undefined, { accept });
    expect(r.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const apps = r.json().items.find((i: { metadata: { name: string } }) => i.metadata.name === 'apps');
    expect(apps.versions[0].resources.find((x: { resource: string }) => x.resource === 'deployments').shortNames).toEqual(['deploy']);
    const core = await inject('GET', '/api', undefined, { accept });
    expect(core.json().items[0].metadata.name).toBe('');
  });
  it('serves legacy discovery', async () => {
    expect((await inject('GET', '/api')).json().kind).toBe('APIVersions');
    expect((await inject('GET', '/apis')).json().kind).toBe('APIGroupList');
    const v1 = (await inject('GET', '/api/v1')).json();
    expect(v1.resources.some((x: { name: string }) => x.name === 'pods/status')).toBe(true);
    expect((await inject('GET', '/apis/apps/v1')).json().groupVersion).toBe('apps/v1');
  });
  it('serves OpenAPI v3, v2 to JSON clients, and 404s v2 asked for in protobuf only (kubectl falls back on that)', async () => {
    const idx = (await inject('GET', '/openapi/v3')).json();
    const url = idx.paths['api/v1'].serverRelativeURL as string;
    const doc = (await inject('GET', url)).json();
    const ns = doc.paths['/api/v1/namespaces/{name}'];
    expect(ns.patch['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'Namespace' });
    const v2 = await inject('GET', '/openapi/v2', undefined, { accept: 'application/json' });
    expect([v2.statusCode, v2.json().swagger]).toEqual([200, '2.0']);
    expect(v2.json().definitions['io.k8s.api.core.v1.Pod']).toMatchObject({ 'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Pod' }] });
    expect((await inject('GET', '/openapi/v2', undefined, { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' })).statusCode).toBe(404);
  });
});

describe('CRUD', () => {
  it('creates with kind defaulted from the URL, gets, lists', async () => {
    const c = await inject('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' }, data: { x: '1' } });
    expect(c.statusCode).toBe(201);
    const obj = c.json();
    expect(obj).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default' } });
    expect(obj.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(obj.metadata.resourceVersion)).toBeGreaterThan(0);
    const g = await inject('GET', '/api/v1/namespaces/default/configmaps/a');
    expect(g.json().data).toEqual({ x: '1' });
    const l = await inject('GET', '/api/v1/configmaps');
    expect(l.json().kind).toBe('ConfigMapList');
    expect(l.json().items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain('a');
  });
  it('409 AlreadyExists, 404 NotFound with Kubernetes messages', async () => {
    const dup = await inject('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' } });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ kind: 'Status', reason: 'AlreadyExists', message: 'configmaps "a" already exists' });
    const nf = await inject('GET', '/api/v1/namespaces/default/configmaps/nope');
    expect(nf.statusCode).toBe(404);
    expect(nf.json()).toMatchObject({ reason: 'NotFound', message: 'configmaps "nope" not found', details: { name: 'nope', kind: 'configmaps' } });
  });
  it('PUT with a stale resourceVersion is a 409 Conflict', async () => {
    const cur = (await inject('GET', '/api/v1/namespaces/default/configmaps/a')).json();
    const ok = await inject('PUT', '/api/v1/namespaces/default/configmaps/a', { ...cur, data: { x: '2' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().metadata.resourceVersion).not.toBe(cur.metadata.resourceVersion);
    const stale = await inject('PUT', '/api/v1/namespaces/default/configmaps/a', { ...cur, data: { x: '3' } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toBe('Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again');
  });
  it('rejects malformed bodies, wrong kinds and oversize bodies with a Status', async () => {
    const bad = await inject('POST', '/api/v1/namespaces/default/configmaps', '{"metadata":');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().kind).toBe('Status');
    const wrong = await inject('POST', '/api/v1/namespaces/default/configmaps', { kind: 'Secret', apiVersion: 'v1', metadata: { name: 'z' } });
    expect(wrong.statusCode).toBe(400);
    const big = await inject('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'big' }, data: { x: 'a'.repeat(3 * 1024 * 1024 + 10) } });
    expect(big.statusCode).toBe(413);
    expect(big.json().reason).toBe('RequestEntityTooLarge');
    const unknown = await inject('POST', '/api/v1/namespaces/default/configmaps', 'xx', { 'content-type': 'application/x-unknown' });
    expect(unknown.statusCode).toBe(415);
    const badProto = await inject('POST', '/api/v1/namespaces/default/configmaps', 'k8s\u0000xx', { 'content-type': 'application/vnd.kubernetes.protobuf' });
    expect(badProto.statusCode).toBe(400);
  });
  it('never answers bad input with a 500', async () => {
    const cases: [string, string, unknown, Record<string, string>?][] = [
      ['POST', '/api/v1/namespaces/default/configmaps', '[]'],
      ['POST', '/api/v1/namespaces/default/configmaps', 'null'],
      ['POST', '/api/v1/namespaces/default/configmaps', '"str"'],
      ['POST', '/api/v1/namespaces/default/configmaps', { metadata: 'x' }],
      ['POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'l', labels: { a: 1 } } }],
      ['POST', '/api/v1/namespaces/default/configmaps', { kind: 7, metadata: { name: 'k' } }],
      ['PUT', '/api/v1/namespaces/default/configmaps/a', { metadata: { name: 'other' } }],
      ['PATCH', '/api/v1/namespaces/default/configmaps/a', '[{"op":"bogus"}]', { 'content-type': 'application/json-patch+json' }],
      ['PATCH', '/api/v1/namespaces/default/configmaps/a', '{"data":', { 'content-type': 'application/merge-patch+json' }],
      ['DELETE', '/api/v1/namespaces/default/configmaps/a', '{"gracePeriodSeconds":"x"}'],
      ['DELETE', '/api/v1/namespaces/default/configmaps/a', { propagationPolicy: 'Sideways' }],
      ['GET', '/api/v1/namespaces/default/configmaps?limit=abc', undefined],
      ['GET', '/api/v1/namespaces/default/configmaps?labelSelector=a%20in%20(', undefined],
      ['GET', '/api/v1/namespaces/default/configmaps?resourceVersion=-4', undefined],
      ['GET', '/api/v1/namespaces/default/configmaps?continue=garbage', undefined],
      ['GET', '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=abc', undefined],
      ['POST', '/api/v1/namespaces/default/configmaps?dryRun=Some', { metadata: { name: 'dr' } }],
      ['GET', '/api/v1/namespaces/%E0%A4%A/configmaps', undefined],
      ['POST', '/api/v1/namespaces/default/pods/nope/binding', { target: { name: 'n' } }],
      ['POST', '/apis/apps/v1/namespaces/default/deployments/nope/scale', {}],
      ['PATCH', '/apis/apps/v1/namespaces/default/deployments/nope/scale', { spec: { replicas: -1 } }, { 'content-type': 'application/merge-patch+json' }],
    ];
    for (const [method, url, body, headers] of cases) {
      const r = await inject(method, url, body, headers);
      expect(r.statusCode, `${method} ${url}`).toBeGreaterThanOrEqual(400);
      expect(r.statusCode, `${method} ${url}`).toBeLessThan(500);
      expect(r.json().kind, `${method} ${url}`).toBe('Status');
    }
  });

  it('generateName, dryRun and YAML bodies', async () => {
    const g = await inject('POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'gen-' } });
    expect(g.json().metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
    const d = await inject('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'dry' } });
    expect(d.statusCode).toBe(201);
    expect((await inject('GET', '/api/v1/namespaces/default/configmaps/dry')).statusCode).toBe(404);
    const y = await inject('POST', '/api/v1/namespaces/default/configmaps', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml\n', { 'content-type': 'application/yaml' });
    expect(y.statusCode).toBe(201);
  });
  it('list pagination with a continue token', async () => {
    for (const n of ['p1', 'p2', 'p3']) await inject('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: n } });
    const first = (await inject('GET', '/api/v1/namespaces/default/secrets?limit=2')).json();
    expect(first.items).toHaveLength(2);
    expect(first.metadata.continue).toBeTruthy();
    const second = (await inject('GET', `/api/v1/namespaces/default/secrets?limit=2&continue=${first.metadata.continue}`)).json();
    expect(second.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['p3']);
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  });
  it('Table output', async () => {
    const t = await inject('GET', '/api/v1/namespaces/default/configmaps', undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    const table = t.json();
    expect(table.kind).toBe('Table');
    expect(table.metadata.resourceVersion).toBeTruthy();
    expect(table.rows[0].object.kind).toBe('PartialObjectMetadata');
  });
});

describe('namespaces and deletion', () => {
  it('refuses creates in missing and terminating namespaces', async () => {
    const missing = await inject('POST', '/api/v1/namespaces/nope/configmaps', { metadata: { name: 'a' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('namespaces "nope" not found');
    expect((await inject('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } })).statusCode).toBe(201);
    const del = await inject('DELETE', '/api/v1/namespaces/doomed');
    expect(del.statusCode).toBe(200);
    expect(del.json().status.phase).toBe('Terminating');
    const inTerm = await inject('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'a' } });
    expect(inTerm.statusCode).toBe(403);
    expect(inTerm.json().message).toContain('unable to create new content in namespace doomed because it is being terminated');
    // Status updates of a terminating namespace keep it until its spec.finalizers are gone.
    const cur = (await inject('GET', '/api/v1/namespaces/doomed')).json();
    const st = await inject('PUT', '/api/v1/namespaces/doomed/status', { ...cur, status: { phase: 'Terminating', conditions: [{ type: 'NamespaceContentRemaining', status: 'False' }] } });
    expect(st.statusCode).toBe(200);
    expect((await inject('GET', '/api/v1/namespaces/doomed')).statusCode).toBe(200);
    const fin = await inject('PUT', '/api/v1/namespaces/doomed/finalize', { metadata: { name: 'doomed' }, spec: { finalizers: [] } });
    expect(fin.statusCode).toBe(200);
    expect((await inject('GET', '/api/v1/namespaces/doomed')).statusCode).toBe(404);
  });
  it('keeps objects with finalizers until the last one is removed', async () => {
    await inject('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'fin', finalizers: ['example.com/x'] } });
    const d = await inject('DELETE', '/api/v1/namespaces/default/configmaps/fin');
    expect(d.statusCode).toBe(200);
    const cur = (await inject('GET', '/api/v1/namespaces/default/configmaps/fin')).json();
    expect(cur.metadata.deletionTimestamp).toBeTruthy();
    const upd = await inject('PUT', '/api/v1/namespaces/default/configmaps/fin', { ...cur, metadata: { ...cur.metadata, finalizers: [] } });
    expect(upd.statusCode).toBe(200);
    expect((await inject('GET', '/api/v1/namespaces/default/configmaps/fin')).statusCode).toBe(404);
  });
  it('deletes a bound pod gracefully and an unbound one at once', async () => {
    const pod = (name: string, nodeName?: string) => ({ metadata: { name }, spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'nginx' }] } });
    expect((await inject('POST', '/api/v1/namespaces/default/pods', pod('unbound'))).statusCode).toBe(201);
    expect((await inject('POST', '/api/v1/namespaces/default/pods', pod('bound', 'node-1'))).statusCode).toBe(201);
    expect((await inject('DELETE', '/api/v1/namespaces/default/pods/unbound')).statusCode).toBe(200);
    expect((await inject('GET', '/api/v1/namespaces/default/pods/unbound')).statusCode).toBe(404);
    const g = await inject('DELETE', '/api/v1/namespaces/default/pods/bound');
    expect(g.json().metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await inject('GET', '/api/v1/namespaces/default/pods/bound')).statusCode).toBe(200);
    await inject('DELETE', '/api/v1/namespaces/default/pods/bound', { gracePeriodSeconds: 0 });
    expect((await inject('GET', '/api/v1/namespaces/default/pods/bound')).statusCode).toBe(404);
  });
  it('binds a pod once', async () => {
    await inject('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'b1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    const b = await inject('POST', '/api/v1/namespaces/default/pods/b1/binding', { metadata: { name: 'b1' }, target: { kind: 'Node', name: 'n1' } });
    expect(b.statusCode).toBe(201);
    expect((await inject('GET', '/api/v1/namespaces/default/pods/b1')).json().spec.nodeName).toBe('n1');
    const again = await inject('POST', '/api/v1/namespaces/default/pods/b1/binding', { metadata: { name: 'b1' }, target: { kind: 'Node', name: 'n2' } });
    expect(again.statusCode).toBe(409);
  });
});
