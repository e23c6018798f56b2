// Names another CRD of the group holds are not accepted (NamesAccepted False with the naming controller's
// reasons and messages, Established False, nothing served), and are accepted once that CRD is gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { injectClient, until, type Body } from '../testing/inject-client.ts';
import { CRDS, createCrd, crdObject, version } from '../testing/crd.ts';

let srv: ApiServer;
const call = injectClient<Body>(() => srv);
const schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const crd = (plural: string, kind: string, extra: Record<string, unknown> = {}) => crdObject({ group: 'names.example.com', names: { plural, kind, ...extra }, versions: [version('v1', schema)] });
const conditions = (b: Body) => (b.status.conditions as Body[]).map((c) => [c.type, c.status, c.reason, c.message]);

beforeAll(async () => {
  srv = await startMemoryApiServer();
  await createCrd(call, crd('foos', 'Foo', { shortNames: ['fo'] }), '/apis/names.example.com/v1/foos');
});
afterAll(async () => srv?.close());

describe('CRD names', () => {
  it('held by another CRD of the group are refused with the naming reasons, and the resource is not served', async () => {
    const kind = await call('POST', CRDS, crd('bars', 'Foo'));
    expect(kind.status).toBe(201);
    expect(conditions(kind.body)).toEqual([
      ['NamesAccepted', 'False', 'ListKindConflict', '"FooList" is already in use'],
      ['Established', 'False', 'NotAccepted', 'not all names are accepted'],
    ]);
    // The singular (foo) conflicts too; the last conflict found names the reason, as in Kubernetes.
    expect(kind.body.status.acceptedNames).toEqual({ plural: 'bars', kind: '' });
    const plural = await call('POST', CRDS, crd('fo', 'Fob'));
    expect(conditions(plural.body)[0]).toEqual(['NamesAccepted', 'False', 'PluralConflict', '"fo" is already in use']);
    const short = await call('POST', CRDS, crd('bazs', 'Baz', { shortNames: ['foos', 'bz'] }));
    expect(conditions(short.body)[0]).toEqual(['NamesAccepted', 'False', 'ShortNamesConflict', '"foos" is already in use']);
    const list = await call('POST', CRDS, crd('quxs', 'Qux', { listKind: 'Foo' }));
    expect(conditions(list.body)[0]).toEqual(['NamesAccepted', 'False', 'ListKindConflict', '"Foo" is already in use']);
    expect((await call('GET', '/apis/names.example.com/v1/bars')).status).toBe(404);
    expect((await call('GET', '/apis/names.example.com/v1/foos')).status).toBe(200);
  });

  it('are accepted and served once the CRD holding them is deleted', async () => {
    expect((await call('DELETE', `${CRDS}/foos.names.example.com`)).status).toBe(200);
    await until(async () => (await call('GET', '/apis/names.example.com/v1/bars')).status === 200, 10_000);
    const bars = (await call('GET', `${CRDS}/bars.names.example.com`)).body;
    expect(conditions(bars)).toEqual([
      ['NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'],
      ['Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'],
    ]);
    expect(bars.status.acceptedNames).toEqual({ plural: 'bars', singular: 'foo', kind: 'Foo', listKind: 'FooList' });
  });
});
