// x-kubernetes-validations on a custom resource's schema: rules see their node as `self`, messages, message
// expressions, reasons and field paths shape the 422, transition rules (`oldSelf`) run only on update, and
// list-map items are correlated with their old selves by key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { injectClient, type Body } from '../testing/inject-client.ts';
import { CRDS, createCrd, crdObject, version } from '../testing/crd.ts';

const G = '/apis/cel.example.com/v1/namespaces/default/gadgets';
let srv: ApiServer;
const call = injectClient<Body>(() => srv);

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' },
        { rule: 'self.minReplicas <= self.replicas', messageExpression: "'replicas ' + string(self.replicas) + ' is below ' + string(self.minReplicas)", fieldPath: '.replicas' },
        { rule: "!has(self.mode) || self.mode != 'forbidden'", reason: 'FieldValueForbidden', message: 'mode forbidden is not allowed' },
      ],
      properties: {
        replicas: { type: 'integer' },
        minReplicas: { type: 'integer', default: 0 },
        maxReplicas: { type: 'integer', default: 10 },
        mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable' }] },
        name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() < 5' }] },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.port >= oldSelf.port', message: 'ports may only grow' }] },
        },
      },
    },
  },
};

beforeAll(async () => {
  srv = await startMemoryApiServer();
  await createCrd(call, crdObject({ group: 'cel.example.com', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [version('v1', schema)] }), G);
});
afterAll(async () => srv?.close());

const gadget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'cel.example.com/v1', kind: 'Gadget', metadata: { name }, spec });

describe('x-kubernetes-validations', () => {
  it('refuses objects failing rules with Kubernetes messages, reasons and field paths', async () => {
    const r = await call('POST', G, gadget('a', { replicas: 12, minReplicas: 13, mode: 'forbidden', name: 'toolong' }));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'Gadget.cel.example.com "a" is invalid: [spec: Invalid value: "object": replicas must not exceed maxReplicas, spec.replicas: Invalid value: "object": replicas 12 is below 13, spec: Forbidden: mode forbidden is not allowed, spec.name: Invalid value: "string": failed rule: self.size() < 5]',
    );
    expect(r.body.details.causes[2]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
    expect((await call('POST', G, gadget('a', { replicas: 3, mode: 'x', ports: [{ name: 'http', port: 80 }] }))).status).toBe(201);
  });

  it('runs transition rules only on update, against the correlated old value', async () => {
    const cur = (await call('GET', `${G}/a`)).body;
    const r = await call('PUT', `${G}/a`, { ...cur, spec: { ...cur.spec, mode: 'y', ports: [{ name: 'https', port: 1 }, { name: 'http', port: 79 }] } });
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.mode', message: 'Invalid value: "string": mode is immutable' },
      { reason: 'FieldValueInvalid', field: 'spec.ports[1]', message: 'Invalid value: "object": ports may only grow' },
    ]);
    const ok = await call('PUT', `${G}/a`, { ...cur, spec: { ...cur.spec, replicas: 4, ports: [{ name: 'https', port: 1 }, { name: 'http', port: 81 }] } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('are compiled when the CRD is written: a rule that does not compile is refused with Kubernetes message', async () => {
    const bad = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'broken.cel.example.com' },
      spec: {
        group: 'cel.example.com',
        scope: 'Namespaced',
        names: { plural: 'broken', kind: 'Broken' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a ==' }] } } } } }],
      },
    };
    const r = await call('POST', CRDS, bad);
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toHaveLength(1);
    expect(r.body.details.causes[0].field).toBe('spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
    expect(r.body.details.causes[0].message).toMatch(
      /^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.a ==", Message:"", MessageExpression:"", Reason:\(\*apiextensions\.FieldValueErrorReason\)\(nil\), FieldPath:"", OptionalOldSelf:\(\*bool\)\(nil\)\}: compilation failed: ./,
    );
  });

  it('refuses non-structural schemas: properties and items without a type (causes sorted as Kubernetes sorts them)', async () => {
    const bad = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'loose.cel.example.com' },
      spec: {
        group: 'cel.example.com',
        scope: 'Namespaced',
        names: { plural: 'loose', kind: 'Loose' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: { a: { type: 'array', items: {} }, b: { 'x-kubernetes-int-or-string': true } } } } } } }],
      },
    };
    const r = await call('POST', CRDS, bad);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "loose.cel.example.com" is invalid: [spec.validation.openAPIV3Schema.properties[spec].properties[a].items.type: Required value: must not be empty for specified array items, spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields]',
    );
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.validation.openAPIV3Schema.properties[spec].properties[a].items.type', message: 'Required value: must not be empty for specified array items' },
      { reason: 'FieldValueRequired', field: 'spec.validation.openAPIV3Schema.properties[spec].type', message: 'Required value: must not be empty for specified object fields' },
    ]);
  });
});
