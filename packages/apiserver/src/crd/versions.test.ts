// A custom resource with several versions (conversion strategy None): objects are stored in the storage version
// and read, listed, watched and written through every served version with only apiVersion changed; each version
// validates with its own schema; discovery prefers the highest version; a deprecated version warns; a new storage
// version is added to status.storedVersions and older stored objects are served in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { injectClient, until, type Body } from '../testing/inject-client.ts';
import { CRDS, createCrd, crdObject } from '../testing/crd.ts';

const BASE = '/apis/multi.example.com';
const at = (v: string, name = '') => `${BASE}/${v}/namespaces/default/dials${name ? `/${name}` : ''}`;
let srv: ApiServer;
const call = injectClient<Body>(() => srv);

const schema = (max: number) => ({ type: 'object', properties: { spec: { type: 'object', properties: { level: { type: 'integer', maximum: max } } } } });
const v1beta1 = { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: schema(5) } };
const v1 = { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema(10) } };
const crd = crdObject({ group: 'multi.example.com', names: { plural: 'dials', kind: 'Dial' }, versions: [v1beta1, v1] });
const dial = (v: string, name: string, level: number) => ({ apiVersion: `multi.example.com/${v}`, kind: 'Dial', metadata: { name }, spec: { level } });
const stored = async (name: string) => JSON.parse((await srv.ctx.backend.get(`/registry/dials.multi.example.com/default/${name}`))?.value ?? '{}') as Body;

beforeAll(async () => {
  srv = await startMemoryApiServer();
  await createCrd(call, crd, at('v1beta1'));
});
afterAll(async () => srv?.close());

describe('custom resource versions', () => {
  it('store in the storage version and serve every served version with its apiVersion', async () => {
    const created = await call('POST', at('v1beta1'), dial('v1beta1', 'a', 3));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.apiVersion).toBe('multi.example.com/v1beta1');
    expect(created.warning).toBe('299 - "multi.example.com/v1beta1 Dial is deprecated; use multi.example.com/v1 Dial"');
    expect((await stored('a')).apiVersion).toBe('multi.example.com/v1');
    const viaV1 = await call('GET', at('v1', 'a'));
    expect(viaV1.body).toMatchObject({ apiVersion: 'multi.example.com/v1', spec: { level: 3 } });
    expect(viaV1.warning).toBeUndefined();
    const listed = await call('GET', at('v1beta1'));
    expect(listed.body).toMatchObject({ apiVersion: 'multi.example.com/v1beta1', kind: 'DialList' });
    expect(listed.body.items.map((i: Body) => i.apiVersion)).toEqual(['multi.example.com/v1beta1']);
    const cached = await call('GET', `${at('v1beta1')}?resourceVersion=0`);
    expect(cached.body.items.map((i: Body) => i.apiVersion)).toEqual(['multi.example.com/v1beta1']);
    const patched = await call('PATCH', at('v1beta1', 'a'), { spec: { level: 4 } }, 'application/merge-patch+json');
    expect(patched.body).toMatchObject({ apiVersion: 'multi.example.com/v1beta1', spec: { level: 4 } });
    expect((await stored('a')).apiVersion).toBe('multi.example.com/v1');
  });

  it("validate with the request version's schema", async () => {
    const beta = await call('POST', at('v1beta1'), dial('v1beta1', 'b', 7));
    expect(beta.status).toBe(422);
    expect(beta.body.message).toBe('Dial.multi.example.com "b" is invalid: spec.level: Invalid value: 7: spec.level in body should be less than or equal to 5');
    expect((await call('POST', at('v1'), dial('v1', 'b', 7))).status).toBe(201);
  });

  it('are in discovery by priority, the highest preferred', async () => {
    const group = await call('GET', BASE);
    expect(group.body.versions.map((v: Body) => v.version)).toEqual(['v1', 'v1beta1']);
    expect(group.body.preferredVersion.version).toBe('v1');
    expect((await call('GET', `${BASE}/v1beta1`)).body.resources.map((r: Body) => r.name)).toEqual(['dials']);
  });

  it('watch in the version asked for', async () => {
    const rv = (await call('GET', at('v1'))).body.metadata.resourceVersion as string;
    expect((await call('POST', at('v1'), dial('v1', 'c', 1))).status).toBe(201);
    expect((await call('DELETE', at('v1beta1', 'c'))).status).toBe(200);
    const r = await srv.app.inject({ method: 'GET', url: `${at('v1beta1')}?watch=true&resourceVersion=${rv}&timeoutSeconds=1` });
    expect(r.headers.warning).toBe('299 - "multi.example.com/v1beta1 Dial is deprecated; use multi.example.com/v1 Dial"');
    const events = r.body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; object: Body });
    expect(events.map((e) => [e.type, e.object.apiVersion, e.object.metadata.name])).toEqual([
      ['ADDED', 'multi.example.com/v1beta1', 'c'],
      ['DELETED', 'multi.example.com/v1beta1', 'c'],
    ]);
  });

  it('a new storage version joins status.storedVersions; objects stored before are served in every version', async () => {
    const cur = (await call('GET', `${CRDS}/dials.multi.example.com`)).body;
    expect(cur.status.storedVersions).toEqual(['v1']);
    const v2 = { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: schema(10) }, deprecated: true, deprecationWarning: 'dials go away' };
    const spec = { ...cur.spec, versions: [{ ...v1beta1, served: false }, { ...v1, storage: false }, v2] };
    const up = await call('PUT', `${CRDS}/dials.multi.example.com`, { ...cur, spec });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.status.storedVersions).toEqual(['v1', 'v2']);
    await until(async () => (await call('GET', at('v2'))).status === 200);
    await until(async () => (await call('GET', at('v1beta1'))).status === 404);
    const a = await call('GET', at('v2', 'a'));
    expect(a.body).toMatchObject({ apiVersion: 'multi.example.com/v2', spec: { level: 4 } });
    expect(a.warning).toBe('299 - "dials go away"');
    expect((await call('GET', `${at('v2')}?resourceVersion=0`)).body.items.map((i: Body) => i.apiVersion)).toEqual(['multi.example.com/v2', 'multi.example.com/v2']);
    expect((await call('POST', at('v2'), dial('v2', 'd', 1))).status).toBe(201);
    expect((await stored('d')).apiVersion).toBe('multi.example.com/v2');
    expect((await stored('a')).apiVersion).toBe('multi.example.com/v1');
    expect((await call('GET', at('v1', 'd'))).body.apiVersion).toBe('multi.example.com/v1');
  });

  it('default objects read from storage with the version schema, without writing them', async () => {
    const cur = (await call('GET', `${CRDS}/dials.multi.example.com`)).body;
    const withDefault = { type: 'object', properties: { spec: { type: 'object', properties: { level: { type: 'integer' }, color: { type: 'string', default: 'red' } } } } };
    const versions = (cur.spec.versions as Body[]).map((v) => (v.name === 'v2' ? { ...v, schema: { openAPIV3Schema: withDefault } } : v));
    expect((await call('PUT', `${CRDS}/dials.multi.example.com`, { ...cur, spec: { ...cur.spec, versions } })).status).toBe(200);
    await until(async () => (await call('GET', at('v2', 'a'))).body.spec.color === 'red');
    expect((await call('GET', `${at('v2')}?resourceVersion=0`)).body.items.map((i: Body) => i.spec.color)).toEqual(['red', 'red', 'red']);
    expect((await call('GET', at('v1', 'a'))).body.spec.color).toBeUndefined();
    expect((await stored('a')).spec).toEqual({ level: 4 });
  });
});
