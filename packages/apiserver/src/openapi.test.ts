// The per-group-version OpenAPI v3 documents: PATCH operations kubectl's --validate=strict checks, and
// components.schemas (from the kinds' schemas) that kubectl explain walks.
import { describe, expect, it } from 'vitest';
import { openapiDocument, openapiV2Document } from './openapi.ts';

type Doc = { paths: Record<string, { patch: Record<string, unknown> }>; components: { schemas: Record<string, Record<string, unknown>> } };

describe('OpenAPI v3 documents', () => {
  it('keep the PATCH operation with fieldValidation and without strategic merge patch', () => {
    const doc = openapiDocument('apps', 'v1') as Doc;
    const op = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']?.patch as Record<string, unknown>;
    expect(op['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect((op.parameters as { name: string }[]).map((p) => p.name)).toContain('fieldValidation');
    expect(Object.keys((op.requestBody as { content: object }).content)).not.toContain('application/strategic-merge-patch+json');
    expect(op.responses).toMatchObject({ '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/io.k8s.api.apps.v1.Deployment' } } } } });
  });

  it('serve schemas for the kinds and every named type they reach, with resolvable $refs', () => {
    const doc = openapiDocument('', 'v1') as Doc;
    const s = doc.components.schemas;
    expect(s['io.k8s.api.core.v1.Pod']).toMatchObject({ type: 'object', 'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Pod' }] });
    // A described $ref is wrapped in allOf, as kube-apiserver publishes it.
    expect((s['io.k8s.api.core.v1.Pod']?.properties as Record<string, unknown>).spec).toMatchObject({ allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }], description: expect.any(String) });
    expect((s['io.k8s.api.core.v1.PodSpec']?.properties as Record<string, unknown>).containers).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/io.k8s.api.core.v1.Container' },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'name',
    });
    expect((s['io.k8s.api.core.v1.PodSpec']?.properties as Record<string, unknown>).volumes).toMatchObject({ 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' });
    expect((s['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']?.properties as Record<string, unknown>).labels).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    expect((s['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']?.properties as Record<string, unknown>).finalizers).toMatchObject({ 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' });
    expect(s['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']).toMatchObject({ 'x-kubernetes-map-type': 'atomic' });
    // Inline structs (VolumeSource) land in their parent.
    expect(Object.keys(s['io.k8s.api.core.v1.Volume']?.properties as object)).toEqual(expect.arrayContaining(['name', 'emptyDir', 'configMap']));
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/[\w.]+/g) ?? [];
    for (const r of refs) expect(s[r.slice('#/components/schemas/'.length)], r).toBeDefined();
    // apps/v1 carries the core types its kinds reference.
    expect((openapiDocument('apps', 'v1') as Doc).components.schemas['io.k8s.api.core.v1.PodTemplateSpec']).toBeDefined();
  });

  it('publishes the same definitions as Swagger 2.0 at /openapi/v2, with v2 refs and int-or-string', () => {
    const v2 = openapiV2Document() as { swagger: string; definitions: Record<string, Record<string, unknown>> };
    expect(v2.swagger).toBe('2.0');
    expect(v2.definitions['io.k8s.api.apps.v1.Deployment']).toMatchObject({ 'x-kubernetes-group-version-kind': [{ group: 'apps', version: 'v1', kind: 'Deployment' }] });
    expect(v2.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({ type: 'string', format: 'int-or-string' });
    const refs = JSON.stringify(v2).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(50);
    for (const r of refs) {
      const name = r.slice('"$ref":"#/definitions/'.length, -1);
      expect(r).toMatch(/^"\$ref":"#\/definitions\//);
      expect(v2.definitions[name], name).toBeDefined();
    }
  });
});
