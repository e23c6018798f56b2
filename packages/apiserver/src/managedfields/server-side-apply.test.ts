// Server-side apply and managedFields over HTTP (fastify inject): Update entries for create/update/patch
// named after ?fieldManager or the User-Agent, apply creating, no-op re-apply, 409 conflicts with
// Kubernetes' message, force, pruning of dropped fields, and client-sent managedFields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import type { ApiServer } from '../server.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv.close());

const KUBECTL_UA = 'kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9';
const APPLY = 'application/apply-patch+yaml';
const D = '/apis/apps/v1/namespaces/default/deployments';
const CM = '/api/v1/namespaces/default/configmaps';

interface Entry {
  manager?: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}
interface Obj {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string>; managedFields?: Entry[] };
  spec?: { replicas?: number; template?: { spec: { containers: { name: string; image: string }[] } } };
  data?: Record<string, string>;
}

async function call(method: string, url: string, body: unknown, ct = 'application/json', ua = KUBECTL_UA) {
  const r = await srv.app.inject({ method: method as 'GET', url, headers: { 'content-type': ct, 'user-agent': ua }, payload: JSON.stringify(body) });
  return { status: r.statusCode, body: r.json() as Obj & Record<string, unknown> };
}

const deploy = (name: string, replicas?: number, image = 'nginx:1') => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    ...(replicas !== undefined ? { replicas } : {}),
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
  },
});

const managers = (o: Obj) => (o.metadata.managedFields ?? []).map((e) => `${e.manager ?? ''}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`);
const entry = (o: Obj, manager: string) => (o.metadata.managedFields ?? []).find((e) => e.manager === manager);

describe('managedFields on create, update and patch', () => {
  it('a create records an Update entry for ?fieldManager, with defaulted fields and keyed containers', async () => {
    const r = await call('POST', `${D}?fieldManager=kubectl-client-side-apply`, deploy('csa', 1));
    expect(r.status).toBe(201);
    const e = entry(r.body, 'kubectl-client-side-apply') as Entry;
    expect(e).toMatchObject({ operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' });
    expect(e.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const spec = e.fieldsV1['f:spec'] as Record<string, Record<string, unknown>>;
    expect(spec['f:replicas']).toEqual({});
    expect(spec['f:selector']).toEqual({});
    expect(spec['f:strategy']).toBeDefined();
    const containers = ((spec['f:template'] as Record<string, Record<string, unknown>>)['f:spec'] as Record<string, Record<string, unknown>>)['f:containers'] as Record<string, Record<string, unknown>>;
    expect(containers['k:{"name":"web"}']).toMatchObject({ '.': {}, 'f:image': {}, 'f:name': {} });
    expect(e.fieldsV1['f:metadata']).toBeUndefined();
    expect(e.fieldsV1['f:status']).toBeUndefined();
  });

  it('without ?fieldManager the manager is the User-Agent before the first "/"', async () => {
    const r = await call('POST', CM, { metadata: { name: 'ua' }, data: { a: '1' } }, 'application/json', 'kube-controller-manager/v1.31.0 (linux/amd64) kubernetes/abc/system:serviceaccount');
    expect(managers(r.body)).toEqual(['kube-controller-manager/Update']);
    expect(entry(r.body, 'kube-controller-manager')?.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:a': {} } });
  });

  it('an update moves the fields it changes to its manager; a no-op update writes nothing', async () => {
    const c = await call('POST', CM, { metadata: { name: 'moved' }, data: { a: '1', b: '2' } }, 'application/json');
    const u = await call('PATCH', `${CM}/moved?fieldManager=editor`, { data: { b: '3' } }, 'application/merge-patch+json');
    expect(u.status).toBe(200);
    expect(entry(u.body, 'kubectl')?.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:a': {} } });
    expect(entry(u.body, 'editor')).toMatchObject({ operation: 'Update', apiVersion: 'v1', fieldsV1: { 'f:data': { 'f:b': {} } } });
    const same = await call('PATCH', `${CM}/moved?fieldManager=editor`, { data: { b: '3' } }, 'application/merge-patch+json');
    expect(same.body.metadata.resourceVersion).toBe(u.body.metadata.resourceVersion);
    expect(c.status).toBe(201);
  });

  it('writes through /status are recorded with subresource status; binding is not recorded', async () => {
    await call('POST', D, deploy('st', 1));
    const cur = (await call('GET', `${D}/st`, undefined)).body;
    const s = await call('PUT', `${D}/st/status?fieldManager=kube-controller-manager`, { ...cur, status: { replicas: 1 } });
    expect(s.status).toBe(200);
    expect(entry(s.body, 'kube-controller-manager')).toMatchObject({ operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { 'f:replicas': {} } } });
  });

  it('managedFields sent by the client: valid entries are kept, [] clears them, garbage is ignored', async () => {
    const c = await call('POST', CM, { metadata: { name: 'sent' }, data: { a: '1' } });
    const kept = c.body.metadata.managedFields as Entry[];
    const given: Entry[] = [{ manager: 'someone', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }];
    const put = await call('PUT', `${CM}/sent`, { ...c.body, metadata: { ...c.body.metadata, managedFields: given } });
    expect(put.status).toBe(200);
    expect(put.body.metadata.managedFields).toEqual(given);
    const bad = await call('PUT', `${CM}/sent`, { ...put.body, metadata: { ...put.body.metadata, managedFields: [{ manager: 'x', operation: 'Bogus' }] } });
    expect(bad.body.metadata.managedFields).toEqual(given);
    const cleared = await call('PATCH', `${CM}/sent`, { metadata: { managedFields: [] } }, 'application/merge-patch+json');
    expect(cleared.status).toBe(200);
    expect(cleared.body.metadata.managedFields).toBeUndefined();
    expect(kept).toHaveLength(1);
  });
});

describe('server-side apply', () => {
  it('creates a missing object with an Apply entry only (201); an unchanged re-apply is a no-op (200)', async () => {
    const a = await call('PATCH', `${D}/ssa?fieldManager=kubectl`, deploy('ssa', 2), APPLY);
    expect(a.status).toBe(201);
    expect(managers(a.body)).toEqual(['kubectl/Apply']);
    expect(entry(a.body, 'kubectl')).toMatchObject({ operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' });
    expect(entry(a.body, 'kubectl')?.fieldsV1).toEqual({
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"web"}': { 'f:image': {}, 'f:name': {}, '.': {} } } },
        },
      },
    });
    const again = await call('PATCH', `${D}/ssa?fieldManager=kubectl`, deploy('ssa', 2), APPLY);
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(a.body.metadata.resourceVersion);
    expect(again.body.metadata.managedFields).toEqual(a.body.metadata.managedFields);
  });

  it('a field owned by another manager with another value is a 409 with Kubernetes message; force takes it', async () => {
    await call('POST', `${D}?fieldManager=kubectl-client-side-apply`, deploy('owned', 1));
    const c = await call('PATCH', `${D}/owned?fieldManager=kubectl`, deploy('owned', 3), APPLY);
    expect(c.status).toBe(409);
    expect(c.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ type: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }] },
      code: 409,
    });
    const two = await call('PATCH', `${D}/owned?fieldManager=kubectl`, deploy('owned', 3, 'nginx:2'), APPLY);
    expect(two.body.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "kubectl-client-side-apply" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name="web"].image',
    );
    const f = await call('PATCH', `${D}/owned?fieldManager=kubectl&force=true`, deploy('owned', 3), APPLY);
    expect(f.status).toBe(200);
    expect(f.body.spec?.replicas).toBe(3);
    const csa = entry(f.body, 'kubectl-client-side-apply') as Entry;
    expect((csa.fieldsV1['f:spec'] as Record<string, unknown>)['f:replicas']).toBeUndefined();
    expect((entry(f.body, 'kubectl')?.fieldsV1['f:spec'] as Record<string, unknown>)['f:replicas']).toEqual({});
  });

  it('a field the applier drops from its manifest is removed, unless another applier also owns it', async () => {
    const cm = (data: Record<string, string>, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pruned', ...(labels ? { labels } : {}) }, data });
    await call('PATCH', `${CM}/pruned?fieldManager=a`, cm({ x: '1', y: '2', z: '3' }, { tier: 'web' }), APPLY);
    await call('PATCH', `${CM}/pruned?fieldManager=b`, cm({ z: '3' }), APPLY);
    const r = await call('PATCH', `${CM}/pruned?fieldManager=a`, cm({ x: '1' }), APPLY);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ x: '1', z: '3' });
    expect(r.body.metadata.labels).toBeUndefined();
    expect(entry(r.body, 'a')?.fieldsV1).toEqual({ 'f:data': { 'f:x': {} } });
    expect(entry(r.body, 'b')?.fieldsV1).toEqual({ 'f:data': { 'f:z': {} } });
  });

  it('drops a container the applier stopped listing; a replicas it stops applying goes back to the default', async () => {
    const two = deploy('drop', 4);
    two.spec.template.spec.containers.push({ name: 'side', image: 'busybox' });
    await call('PATCH', `${D}/drop?fieldManager=kubectl`, two, APPLY);
    const r = await call('PATCH', `${D}/drop?fieldManager=kubectl`, deploy('drop'), APPLY);
    expect(r.status).toBe(200);
    expect(r.body.spec?.template?.spec.containers.map((c) => c.name)).toEqual(['web']);
    expect(r.body.spec?.replicas).toBe(1);
  });

  it('answers like Kubernetes without fieldManager, with managedFields in the manifest, and force on other patches', async () => {
    const no = await call('PATCH', `${D}/ssa`, deploy('ssa', 2), APPLY);
    expect(no.status).toBe(422);
    expect(no.body).toMatchObject({ reason: 'Invalid', message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch' });
    const both = await call('PATCH', `${D}/ssa?fieldValidation=Bogus`, deploy('ssa', 2), APPLY);
    expect(both.status).toBe(422);
    expect((both.body.details as { causes: { field: string }[] }).causes.map((c) => c.field)).toEqual(['fieldManager', 'fieldValidation']);
    const long = await call('PATCH', `${D}/ssa?fieldManager=${'m'.repeat(129)}`, deploy('ssa', 2), APPLY);
    expect(long.status).toBe(422);
    expect(long.body.message).toContain('fieldManager: Too long');
    const mf = await call('PATCH', `${CM}/mf?fieldManager=a`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mf', managedFields: [] } }, APPLY);
    expect(mf.status).toBe(400);
    expect(mf.body.message).toBe('metadata.managedFields must be nil');
    const force = await call('PATCH', `${CM}/pruned?force=true`, { data: { q: '1' } }, 'application/merge-patch+json');
    expect(force.status).toBe(422);
    expect(force.body.message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  it('scale through /scale is owned by its manager with subresource scale, and conflicts with a later apply', async () => {
    await call('PATCH', `${D}/scaled?fieldManager=kubectl`, deploy('scaled', 2), APPLY);
    const s = await call('PATCH', `${D}/scaled/scale`, { spec: { replicas: 5 } }, 'application/merge-patch+json');
    expect(s.status).toBe(200);
    const d = (await call('GET', `${D}/scaled`, undefined)).body;
    expect(entry(d, 'kubectl')).toBeDefined();
    const upd = (d.metadata.managedFields ?? []).find((e) => e.subresource === 'scale');
    expect(upd).toMatchObject({ manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
    const c = await call('PATCH', `${D}/scaled?fieldManager=kubectl`, deploy('scaled', 2), APPLY);
    expect(c.status).toBe(409);
    expect(c.body.message).toBe('Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas');
  });

  it('after a rollout undo (a template with creationTimestamp: null) and a scale, a re-apply without replicas does not conflict', async () => {
    await call('PATCH', `${D}/undone?fieldManager=kubectl`, deploy('undone', undefined, 'nginx:1'), APPLY);
    await call('PATCH', `${D}/undone?fieldManager=kubectl`, deploy('undone', undefined, 'nginx:2'), APPLY);
    // kubectl rollout undo: the old ReplicaSet's template (Go serialises its zero creationTimestamp as null),
    // replacing the Deployment's by a JSON patch.
    const template = { metadata: { creationTimestamp: null, labels: { app: 'undone' } }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } };
    const undo = await call('PATCH', `${D}/undone?fieldManager=kubectl-rollout`, [{ op: 'replace', path: '/spec/template', value: template }], 'application/json-patch+json');
    expect(undo.status).toBe(200);
    expect(undo.body.spec?.template).toMatchObject({ metadata: { creationTimestamp: null } });
    const s = await call('PATCH', `${D}/undone/scale?fieldManager=kubectl`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
    expect(s.status).toBe(200);
    const d = (await call('GET', `${D}/undone`, undefined)).body;
    // The scale owns replicas only; the null timestamp stays with the rollout that wrote it.
    expect((d.metadata.managedFields ?? []).find((e) => e.subresource === 'scale')?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
    const again = await call('PATCH', `${D}/undone?fieldManager=kubectl`, deploy('undone', undefined, 'nginx:1'), APPLY);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.spec?.replicas).toBe(3);
    // Updates that leave the null alone do not take it either.
    const label = await call('PATCH', `${D}/undone?fieldManager=labeler`, { metadata: { labels: { tier: 'web' } } }, 'application/merge-patch+json');
    expect(entry(label.body, 'labeler')?.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } });
  });
});
