// Custom resources decoded as Kubernetes does: fields outside the schema are pruned (kept under
// x-kubernetes-preserve-unknown-fields, apiVersion/kind/metadata kept in embedded resources), fieldValidation
// Strict refuses them with the decoder's 400, Warn (the default) names them in Warning headers, Ignore drops them
// silently; absent fields get the schema's defaults on create, update and patch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { injectClient, type Body } from '../testing/inject-client.ts';
import { createCrd, crdObject, version } from '../testing/crd.ts';

const W = '/apis/decode.example.com/v1/namespaces/default/widgets';
let srv: ApiServer;
const call = injectClient<Body>(() => srv);

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer', default: 3 },
        mode: { type: 'string', default: 'fast' },
        ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } },
        nested: { type: 'object', default: {}, properties: { level: { type: 'string', default: 'info' } } },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

beforeAll(async () => {
  srv = await startMemoryApiServer();
  await createCrd(call, crdObject({ group: 'decode.example.com', names: { plural: 'widgets', kind: 'Widget' }, versions: [version('v1', schema)] }), W);
});
afterAll(async () => srv?.close());

const widget = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'decode.example.com/v1', kind: 'Widget', metadata: { name }, spec, ...extra });

describe('custom resource decoding', () => {
  it('prunes unknown fields with a warning each by default, keeping preserved and embedded metadata, and defaults', async () => {
    const r = await call(
      'POST',
      W,
      widget('a', { foo: 1, ports: [{ port: 80, bar: true }], labels: { x: 'y' }, extra: { any: { thing: 1 } }, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'b', c: 'd' } } }, { top: 'x' }),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.warning).toBe('299 - "unknown field \\"spec.foo\\"", 299 - "unknown field \\"spec.ports[0].bar\\"", 299 - "unknown field \\"spec.template.spec.c\\"", 299 - "unknown field \\"top\\""');
    expect(r.body.top).toBeUndefined();
    expect(r.body.spec).toEqual({
      size: 3,
      mode: 'fast',
      ports: [{ port: 80, protocol: 'TCP' }],
      labels: { x: 'y' },
      extra: { any: { thing: 1 } },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'b' } },
      nested: { level: 'info' },
    });
    expect((await call('GET', `${W}/a`)).body.spec.size).toBe(3);
  });

  it('refuses unknown fields under fieldValidation=Strict with the decoder message, and drops them silently under Ignore', async () => {
    const strict = await call('POST', `${W}?fieldValidation=Strict`, widget('b', { foo: 1, size: 1 }));
    expect(strict.status).toBe(400);
    expect(strict.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.foo"' });
    const ignore = await call('POST', `${W}?fieldValidation=Ignore`, widget('b', { foo: 1, size: 1 }));
    expect(ignore.status).toBe(201);
    expect(ignore.warning).toBeUndefined();
    expect(ignore.body.spec).toEqual({ size: 1, mode: 'fast', nested: { level: 'info' } });
  });

  it('prunes and defaults on update and merge patch too', async () => {
    const cur = (await call('GET', `${W}/b`)).body;
    const put = await call('PUT', `${W}/b`, { ...cur, spec: { size: 7, zap: 1 } });
    expect(put.status).toBe(200);
    expect(put.warning).toBe('299 - "unknown field \\"spec.zap\\""');
    expect(put.body.spec).toEqual({ size: 7, mode: 'fast', nested: { level: 'info' } });
    const patch = await call('PATCH', `${W}/b?fieldValidation=Strict`, { spec: { mode: null, zip: 2 } }, 'application/merge-patch+json');
    expect(patch.status).toBe(400);
    expect(patch.body.message).toBe('strict decoding error: unknown field "spec.zip"');
    const ok = await call('PATCH', `${W}/b`, { spec: { mode: null } }, 'application/merge-patch+json');
    expect(ok.status).toBe(200);
    expect(ok.body.spec.mode).toBe('fast');
  });
});
