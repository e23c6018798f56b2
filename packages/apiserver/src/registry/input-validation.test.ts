// Bad input answered as Kubernetes answers it: the decoder's 400 for a value of the wrong JSON type, checkName's
// 400, the options validators' 422s (CreateOptions, ListOptions, DeleteOptions), query-parameter parse errors,
// strategic-merge directives that are not lists, and read-only discovery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
  await send('POST', CM, { metadata: { name: 'live' }, data: { k: 'v' } });
});
afterAll(async () => srv.close());

const CM = '/api/v1/namespaces/default/configmaps';

async function send(method: string, url: string, body?: unknown, contentType = 'application/json') {
  const r = await srv.app.inject({
    method: method as 'GET',
    url,
    ...(body === undefined ? {} : { headers: { 'content-type': contentType }, payload: JSON.stringify(body) }),
  });
  return { status: r.statusCode, body: r.json() as { kind?: string; reason?: string; message?: string; details?: unknown } };
}

async function expectStatus(p: ReturnType<typeof send>, code: number, reason: string, message: string) {
  const r = await p;
  expect(r.status).toBe(code);
  expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', code, reason, message });
}

const cmPrefix = 'ConfigMap in version "v1" cannot be handled as a ConfigMap: ';

describe('bodies decode as Go decodes them into the typed object', () => {
  it('a metadata value of the wrong JSON type is a 400 naming the Go struct field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ generation: 'x' }, 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64'],
      [{ generation: 1.5 }, 'json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64'],
      [{ creationTimestamp: 5 }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string'],
      [{ ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'x', uid: 5 }] }, 'json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.uid of type types.UID'],
      [{ ownerReferences: [{ controller: 'yes' }] }, 'json: cannot unmarshal string into Go struct field OwnerReference.metadata.ownerReferences.controller of type bool'],
      [{ managedFields: 'x' }, 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.managedFields of type []v1.ManagedFieldsEntry'],
      [{ labels: { a: 1 } }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
      [{ name: 42 }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string'],
    ];
    for (const [meta, message] of cases) {
      await expectStatus(send('POST', CM, { metadata: { name: 'bad', ...meta } }), 400, 'BadRequest', cmPrefix + message);
      await expectStatus(send('PUT', `${CM}/live`, { metadata: { name: 'live', ...meta } }), 400, 'BadRequest', cmPrefix + message);
    }
    await expectStatus(send('PUT', `${CM}/live`, { metadata: 'x' }), 400, 'BadRequest', `${cmPrefix}json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta`);
  });

  it('a metav1.Time that is not RFC 3339 fails as time.Parse does', async () => {
    await expectStatus(
      send('PUT', `${CM}/live`, { metadata: { name: 'live', creationTimestamp: 'yesterday' } }),
      400,
      'BadRequest',
      `${cmPrefix}parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`,
    );
    await expectStatus(
      send('PUT', `${CM}/live`, { metadata: { name: 'live', deletionTimestamp: '2024-13-01T00:00:00Z' } }),
      400,
      'BadRequest',
      `${cmPrefix}parsing time "2024-13-01T00:00:00Z": month out of range`,
    );
  });

  it('a spec of the wrong type, deep or at the top, names its Go type', async () => {
    await expectStatus(
      send('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'p' }, spec: 'x' }),
      400,
      'BadRequest',
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field Pod.spec of type v1.PodSpec',
    );
    await expectStatus(
      send('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 'x' }] }] } }),
      400,
      'BadRequest',
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
    );
  });

  it('a PUT body without a name (or metadata: null) does not match the URL', async () => {
    const message = 'the name of the object () does not match the name on the URL (live)';
    await expectStatus(send('PUT', `${CM}/live`, { metadata: null, data: {} }), 400, 'BadRequest', message);
    await expectStatus(send('PUT', `${CM}/live`, { metadata: { name: null } }), 400, 'BadRequest', message);
    await expectStatus(
      send('PUT', '/api/v1/namespaces/default/finalize', { metadata: { name: 'a\u0000b' }, spec: { finalizers: ['kubernetes'] } }),
      400,
      'BadRequest',
      'the name of the object (a\u0000b) does not match the name on the URL (default)',
    );
  });
});

describe('options and query parameters', () => {
  it('a fieldManager over 128 bytes is a CreateOptions 422', async () => {
    const r = await send('POST', `${CM}?fieldManager=${'m'.repeat(129)}`, { metadata: { name: 'fm' } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      reason: 'Invalid',
      message: 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: must have at most 128 bytes',
      details: { group: 'meta.k8s.io', kind: 'CreateOptions', causes: [{ reason: 'FieldValueTooLong', field: 'fieldManager' }] },
    });
  });

  it('list parameters are parsed and validated as ListOptions', async () => {
    await expectStatus(send('GET', `${CM}?timeoutSeconds=abc`), 400, 'BadRequest', 'strconv.ParseInt: parsing "abc": invalid syntax');
    await expectStatus(send('GET', `${CM}?sendInitialEvents=maybe`), 422, 'Invalid', 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
    await expectStatus(send('GET', `${CM}?fieldSelector=metadata.name==x==y`), 400, 'BadRequest', 'invalid field selector: unescaped character in value: 61');
    await expectStatus(
      send('GET', `${CM}?resourceVersionMatch=Exact`),
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
    // No storage behind componentstatuses, but its list options are still checked.
    await expectStatus(send('GET', '/api/v1/componentstatuses?limit=abc'), 400, 'BadRequest', 'strconv.ParseInt: parsing "abc": invalid syntax');
    expect(await send('GET', '/api/v1/componentstatuses?labelSelector=((')).toMatchObject({ status: 400, body: { reason: 'BadRequest' } });
    const none = await send('GET', '/api/v1/componentstatuses?fieldSelector=metadata.name=nope');
    expect(none.status).toBe(200);
    expect((none.body as { items?: unknown[] }).items).toEqual([]);
  });

  it('DeleteOptions: wrong JSON types are the decoder 400, bad dryRun values the validator 422', async () => {
    await expectStatus(send('DELETE', `${CM}/live`, { preconditions: { uid: 5 } }), 400, 'BadRequest', 'json: cannot unmarshal number into Go struct field Preconditions.preconditions.uid of type types.UID');
    await expectStatus(send('DELETE', `${CM}/live`, { dryRun: 'All' }), 400, 'BadRequest', 'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string');
    await expectStatus(send('DELETE', `${CM}/live`, { orphanDependents: 'yes' }), 400, 'BadRequest', 'json: cannot unmarshal string into Go struct field DeleteOptions.orphanDependents of type bool');
    await expectStatus(send('DELETE', `${CM}/live`, { dryRun: ['Sometimes'] }), 422, 'Invalid', 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Sometimes"}: supported values: "All"');
    expect((await send('GET', `${CM}/live`)).status).toBe(200);
  });

  it('a strategic merge directive that is not a list is a 400', async () => {
    const smp = 'application/strategic-merge-patch+json';
    await expectStatus(send('PATCH', `${CM}/live`, { metadata: { '$setElementOrder/finalizers': 'x' } }, smp), 400, 'BadRequest', 'invalid patch format of setElementOrder list');
    await expectStatus(send('PATCH', `${CM}/live`, { metadata: { '$deleteFromPrimitiveList/finalizers': 5 } }, smp), 400, 'BadRequest', 'invalid patch format of primitive list');
  });

  it('discovery documents are read-only', async () => {
    await expectStatus(send('PATCH', '/apis/apps/v1', {}, 'application/merge-patch+json'), 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  });
});
