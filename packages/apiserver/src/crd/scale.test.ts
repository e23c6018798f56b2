// The scale subresource of a custom resource: an autoscaling/v1 Scale read from the CRD's specReplicasPath,
// statusReplicasPath and labelSelectorPath, written back to specReplicasPath by PUT and patches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { injectClient, type Body } from '../testing/inject-client.ts';
import { createCrd, crdObject, version } from '../testing/crd.ts';

const B = '/apis/scale.example.com/v1/namespaces/default/batches';
let srv: ApiServer;
const call = injectClient<Body>(() => srv);

const schema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { workers: { type: 'object', properties: { count: { type: 'integer', maximum: 10 } } } } },
    status: { type: 'object', properties: { count: { type: 'integer' }, selector: { type: 'string' } } },
  },
};

beforeAll(async () => {
  srv = await startMemoryApiServer();
  const subresources = { status: {}, scale: { specReplicasPath: '.spec.workers.count', statusReplicasPath: '.status.count', labelSelectorPath: '.status.selector' } };
  await createCrd(call, crdObject({ group: 'scale.example.com', names: { plural: 'batches', kind: 'Batch' }, versions: [version('v1', schema, { subresources })] }), B);
});
afterAll(async () => srv?.close());

describe('custom resource /scale', () => {
  it('reads the Scale from the CRD paths, 0 and "" when they are absent', async () => {
    expect((await call('POST', B, { apiVersion: 'scale.example.com/v1', kind: 'Batch', metadata: { name: 'a' }, spec: {} })).status).toBe(201);
    const empty = await call('GET', `${B}/a/scale`);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'a', namespace: 'default' }, spec: { replicas: 0 }, status: { replicas: 0, selector: '' } });
    const st = await call('PATCH', `${B}/a/status`, { status: { count: 2, selector: 'app=a' } }, 'application/merge-patch+json');
    expect(st.status, JSON.stringify(st.body)).toBe(200);
    expect((await call('GET', `${B}/a/scale`)).body).toMatchObject({ spec: { replicas: 0 }, status: { replicas: 2, selector: 'app=a' } });
  });

  it('writes spec.replicas to specReplicasPath by merge patch and PUT, validated by the schema', async () => {
    const p = await call('PATCH', `${B}/a/scale`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body.spec.replicas).toBe(3);
    expect((await call('GET', `${B}/a`)).body.spec).toEqual({ workers: { count: 3 } });
    const cur = (await call('GET', `${B}/a/scale`)).body;
    const put = await call('PUT', `${B}/a/scale`, { ...cur, spec: { replicas: 5 } });
    expect(put.status).toBe(200);
    expect((await call('GET', `${B}/a`)).body.spec.workers.count).toBe(5);
    const neg = await call('PATCH', `${B}/a/scale`, { spec: { replicas: -1 } }, 'application/merge-patch+json');
    expect(neg.status).toBe(422);
    const big = await call('PATCH', `${B}/a/scale`, { spec: { replicas: 11 } }, 'application/merge-patch+json');
    expect(big.status).toBe(422);
    expect(big.body.message).toContain('spec.workers.count: Invalid value: 11: spec.workers.count in body should be less than or equal to 10');
  });
});
