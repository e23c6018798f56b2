// fieldValidation on create, update and merge patch: Strict → 400 strict decoding error, Warn (default) →
// dropped with a Warning header, Ignore → dropped silently; maps and free-form fields are never flagged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import type { ApiServer } from '../server.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv.close());

const inject = (method: string, url: string, body: unknown, ct = 'application/json') =>
  srv.app.inject({ method: method as 'GET', url, headers: { 'content-type': ct }, payload: JSON.stringify(body) });

const CM = '/api/v1/namespaces/default/configmaps';
const D = '/apis/apps/v1/namespaces/default/deployments';
const deploy = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { any: 'label' }, annotations: { 'x/y': 'z' } },
  spec: {
    selector: { matchLabels: { a: 'b' } },
    template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '1' } } }] } },
    ...extra,
  },
});

describe('fieldValidation on create', () => {
  it('Strict refuses unknown fields with a 400 naming each, in document order', async () => {
    const r = await inject('POST', `${CM}?fieldValidation=Strict`, { metadata: { name: 's1' }, bogus: 1, data: { k: 'v' } });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"' });
    const d = await inject('POST', `${D}?fieldValidation=Strict`, { ...deploy('s2', { b: 2, template: { spec: { containers: [{ name: 'c', image: 'i', imagePullPolice: 'x' }] } } }), a: 1 });
    expect(d.statusCode).toBe(400);
    expect(d.json().message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolice", unknown field "spec.b", unknown field "a"',
    );
    expect((await inject('POST', `${D}?fieldValidation=Strict`, deploy('s3'))).statusCode).toBe(201);
  });

  it('Warn (also the default) drops them and says so in a Warning header', async () => {
    for (const [name, q] of [['w1', '?fieldValidation=Warn'], ['w2', '']] as const) {
      const r = await inject('POST', `${CM}${q}`, { metadata: { name }, bogus: 1, data: { k: 'v' } });
      expect(r.statusCode).toBe(201);
      expect(r.headers.warning).toBe('299 - "unknown field \\"bogus\\""');
      expect(r.json().bogus).toBeUndefined();
      expect(r.json().data).toEqual({ k: 'v' });
    }
  });

  it('Ignore drops them silently; an unsupported directive is refused', async () => {
    const r = await inject('POST', `${CM}?fieldValidation=Ignore`, { metadata: { name: 'i1' }, bogus: 1 });
    expect(r.statusCode).toBe(201);
    expect(r.headers.warning).toBeUndefined();
    expect(r.json().bogus).toBeUndefined();
    const bad = await inject('POST', `${CM}?fieldValidation=Loud`, { metadata: { name: 'i2' } });
    expect(bad.statusCode).toBe(422);
  });

  it('judges Node, Endpoints, EndpointSlice and both Events too', async () => {
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['/api/v1/nodes', 'Node', { spec: { custom: true }, status: { nodeInfo: { swap: {} } } }, 'unknown field "spec.custom", unknown field "status.nodeInfo.swap"'],
      ['/api/v1/namespaces/default/endpoints', 'Endpoints', { subsets: [{ addresses: [{ ip: '10.0.0.1', zone: 'a' }] }] }, 'unknown field "subsets[0].addresses[0].zone"'],
      ['/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', 'EndpointSlice', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], ready: true }] }, 'unknown field "endpoints[0].ready"'],
      ['/api/v1/namespaces/default/events', 'Event', { involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, note: 'x' }, 'unknown field "note"'],
      ['/apis/events.k8s.io/v1/namespaces/default/events', 'Event', { eventTime: '2024-01-01T00:00:00.000000Z', reportingController: 'a/b', reportingInstance: 'i', action: 'A', reason: 'R', regarding: { kind: 'Pod', name: 'p' }, type: 'Normal', message: 'x' }, 'unknown field "message"'],
    ];
    // Names differ per case: both Event groups are one storage, so a second "fv-warn" Event would be AlreadyExists.
    for (const [i, [url, kind, body, unknown]] of cases.entries()) {
      const strict = await inject('POST', `${url}?fieldValidation=Strict`, { metadata: { name: 'fv-strict' }, ...body });
      expect(strict.statusCode).toBe(400);
      expect(strict.json().message).toBe(`${kind} in version "v1" cannot be handled as a ${kind}: strict decoding error: ${unknown}`);
      const warn = await inject('POST', url, { metadata: { name: `fv-warn-${i}` }, ...body });
      expect(warn.statusCode).toBe(201);
      expect(warn.headers.warning).toContain('unknown field');
    }
  });
});

describe('fieldValidation on a merge patch', () => {
  it('judges the patched object: Strict 400, Warn drops with a warning, Ignore drops', async () => {
    expect((await inject('POST', D, deploy('p1'))).statusCode).toBe(201);
    const MP = 'application/merge-patch+json';
    const strict = await inject('PATCH', `${D}/p1?fieldValidation=Strict`, { spec: { replicas: 2, bogus: true } }, MP);
    expect(strict.statusCode).toBe(400);
    expect(strict.json()).toMatchObject({ reason: 'BadRequest', message: 'strict decoding error: unknown field "spec.bogus"' });
    const warn = await inject('PATCH', `${D}/p1`, { spec: { replicas: 2, bogus: true } }, MP);
    expect(warn.statusCode).toBe(200);
    expect(warn.headers.warning).toBe('299 - "unknown field \\"spec.bogus\\""');
    expect(warn.json().spec.bogus).toBeUndefined();
    expect(warn.json().spec.replicas).toBe(2);
    const ignore = await inject('PATCH', `${D}/p1?fieldValidation=Ignore`, { spec: { bogus: true }, metadata: { labels: { free: 'form' } } }, MP);
    expect(ignore.statusCode).toBe(200);
    expect(ignore.headers.warning).toBeUndefined();
    expect(ignore.json().metadata.labels.free).toBe('form');
  });
});

describe('server-side apply', () => {
  it('refuses unknown fields whatever fieldValidation says', async () => {
    const body = { ...deploy('ssa1', { replica: 2 }) };
    const r = await inject('PATCH', `${D}/ssa1?fieldManager=t&fieldValidation=Ignore`, body, 'application/apply-patch+yaml');
    expect(r.statusCode).toBe(400);
    expect(r.json().message).toBe('failed to create typed patch object (default/ssa1; apps/v1, Kind=Deployment): .spec.replica: field not declared in schema');
    const ok = await inject('PATCH', `${D}/ssa1?fieldManager=t`, deploy('ssa1'), 'application/apply-patch+yaml');
    expect(ok.statusCode).toBe(201);
  });
});
