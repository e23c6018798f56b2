// Custom resources in the served OpenAPI: the v3 index names their group versions, each document carries the
// kind's schema from the CRD (with apiVersion, kind, ObjectMeta and its GVK), its List and the PATCH operation
// with fieldValidation, every $ref resolvable; /openapi/v2 has the same definitions; a CRD gone leaves none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { injectClient, until, type Body } from '../testing/inject-client.ts';
import { CRDS, createCrd, crdObject, version } from '../testing/crd.ts';

let srv: ApiServer;
const call = injectClient<Body>(() => srv);
const schema = {
  type: 'object',
  description: 'A gizmo.',
  properties: { spec: { type: 'object', description: 'What the gizmo does.', properties: { size: { type: 'integer', description: 'How big.' }, ports: { type: 'array', items: { type: 'string' } } } } },
};

beforeAll(async () => {
  srv = await startMemoryApiServer();
  await createCrd(call, crdObject({ group: 'api.example.com', names: { plural: 'gizmos', kind: 'Gizmo' }, versions: [version('v1alpha1', schema)] }), '/apis/api.example.com/v1alpha1/gizmos');
});
afterAll(async () => srv?.close());

describe('custom resources in OpenAPI', () => {
  it('v3: the index and a document per group version with the CRD schema, its List and PATCH', async () => {
    const index = await call('GET', '/openapi/v3');
    const url = index.body.paths['apis/api.example.com/v1alpha1']?.serverRelativeURL as string;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/api\.example\.com\/v1alpha1\?hash=[0-9A-F]{128}$/);
    const doc = (await call('GET', url)).body;
    const s = doc.components.schemas;
    expect(s['com.example.api.v1alpha1.Gizmo']).toMatchObject({
      type: 'object',
      description: 'A gizmo.',
      'x-kubernetes-group-version-kind': [{ group: 'api.example.com', kind: 'Gizmo', version: 'v1alpha1' }],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] },
        spec: { type: 'object', description: 'What the gizmo does.', properties: { size: { type: 'integer', description: 'How big.' } } },
      },
    });
    expect(s['com.example.api.v1alpha1.GizmoList'].properties.items.items).toEqual({ $ref: '#/components/schemas/com.example.api.v1alpha1.Gizmo' });
    const op = doc.paths['/apis/api.example.com/v1alpha1/namespaces/{namespace}/gizmos/{name}'].patch;
    expect(op['x-kubernetes-group-version-kind']).toEqual({ group: 'api.example.com', version: 'v1alpha1', kind: 'Gizmo' });
    expect(op.parameters.map((p: Body) => p.name)).toContain('fieldValidation');
    for (const r of JSON.stringify(doc).match(/#\/components\/schemas\/[\w.]+/g) ?? []) expect(s[r.slice('#/components/schemas/'.length)], r).toBeDefined();
  });

  it('v2: the same definitions; none once the CRD is deleted', async () => {
    const v2 = (await call('GET', '/openapi/v2')).body;
    expect(v2.definitions['com.example.api.v1alpha1.Gizmo'].properties.spec.properties.size).toEqual({ type: 'integer', description: 'How big.' });
    expect(v2.definitions['com.example.api.v1alpha1.Gizmo'].properties.metadata.allOf).toEqual([{ $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
    expect((await call('DELETE', `${CRDS}/gizmos.api.example.com`)).status).toBe(200);
    await until(async () => (await call('GET', '/openapi/v3')).body.paths['apis/api.example.com/v1alpha1'] === undefined);
    expect((await call('GET', '/openapi/v3/apis/api.example.com/v1alpha1')).status).toBe(404);
    expect((await call('GET', '/openapi/v2')).body.definitions['com.example.api.v1alpha1.Gizmo']).toBeUndefined();
  });
});
