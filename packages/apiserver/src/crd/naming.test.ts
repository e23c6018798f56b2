// Names another CRD of the group holds are not accepted (NamesAccepted False with the naming controller's
// reasons and messages, Established False, nothing served), and are accepted once that CRD is gone; the naming
// rule gives every replica the same answer whatever part of the log its cache holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { injectClient, until, type Body } from '../testing/inject-client.ts';
import { CRDS, createCrd, crdObject, version } from '../testing/crd.ts';
import type { KubeObject } from '@kemu/api';
import { decideNames, reconcileNames } from './naming-controller.ts';
import { silentLogger } from '@kemu/base';
import { MemoryBackend } from '@kemu/store';
import { createApiServer } from '../server.ts';

let srv: ApiServer;
const call = injectClient<Body>(() => srv);
const schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const crd = (plural: string, kind: string, extra: Record<string, unknown> = {}) => crdObject({ group: 'names.example.com', names: { plural, kind, ...extra }, versions: [version('v1', schema)] });
const conditions = (b: Body) => ((b.status.conditions ?? []) as Body[]).map((c) => [c.type, c.status, c.reason, c.message]);

/** Creates a CRD and returns it once the naming controller has decided on its names. */
async function created(body: Record<string, unknown>): Promise<Body> {
  const r = await call('POST', CRDS, body);
  expect(r.status).toBe(201);
  const url = `${CRDS}/${r.body.metadata.name}`;
  let got: Body = r.body;
  await until(async () => conditions((got = (await call('GET', url)).body)).length > 0, 10_000);
  return got;
}

beforeAll(async () => {
  srv = await startMemoryApiServer();
  await createCrd(call, crd('foos', 'Foo', { shortNames: ['fo'] }), '/apis/names.example.com/v1/foos');
});
afterAll(async () => srv?.close());

describe('CRD names', () => {
  it('held by another CRD of the group are refused with the naming reasons, and the resource is not served', async () => {
    const kind = { body: await created(crd('bars', 'Foo')) };
    expect(conditions(kind.body)).toEqual([
      ['NamesAccepted', 'False', 'ListKindConflict', '"FooList" is already in use'],
      ['Established', 'False', 'NotAccepted', 'not all names are accepted'],
    ]);
    // The singular (foo) conflicts too; the last conflict found names the reason, as in Kubernetes.
    expect(kind.body.status.acceptedNames).toEqual({ plural: 'bars', kind: '' });
    const plural = { body: await created(crd('fo', 'Fob')) };
    expect(conditions(plural.body)[0]).toEqual(['NamesAccepted', 'False', 'PluralConflict', '"fo" is already in use']);
    const short = { body: await created(crd('bazs', 'Baz', { shortNames: ['foos', 'bz'] })) };
    expect(conditions(short.body)[0]).toEqual(['NamesAccepted', 'False', 'ShortNamesConflict', '"foos" is already in use']);
    const list = { body: await created(crd('quxs', 'Qux', { listKind: 'Foo' })) };
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

/** A CRD as a replica's cache holds it: names requested, the accepted ones, its place in the log. */
const cached = (name: string, kind: string, rv: number, accepted: Record<string, unknown> = { plural: '', kind: '' }): KubeObject =>
  ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${name}.race.example.com`, resourceVersion: String(rv) },
    spec: { group: 'race.example.com', names: { plural: name, singular: name, kind, listKind: `${kind}List` } },
    status: { acceptedNames: accepted },
  }) as KubeObject;

describe('CRD names claimed by two CRDs at once', () => {
  it('go to the first in the log whatever prefix of the log a replica decides from', () => {
    const a = cached('alphas', 'Shared', 10);
    const b = cached('betas', 'Shared', 11);
    // Replica 1 saw only A; replica 2 saw both, A still undecided: both give A the kind, replica 2 refuses B.
    expect(decideNames(a, [a]).status).toBe('True');
    expect(decideNames(a, [a, b]).status).toBe('True');
    expect(decideNames(b, [a, b])).toMatchObject({ status: 'False', reason: 'ListKindConflict', message: '"SharedList" is already in use' });
    expect(decideNames(b, [a, b]).acceptedNames).toEqual({ plural: 'betas', singular: 'betas', kind: '' });
    // Once A's decision is written (a later resourceVersion, names accepted), B still yields; and B's refusal
    // (a write that makes B later than A) does not make B's request count against A.
    const aAccepted = cached('alphas', 'Shared', 12, { plural: 'alphas', singular: 'alphas', kind: 'Shared', listKind: 'SharedList' });
    expect(decideNames(b, [aAccepted, b]).status).toBe('False');
    const bRefused = cached('betas', 'Shared', 13, decideNames(b, [a, b]).acceptedNames);
    expect(decideNames(a, [a, bRefused]).status).toBe('True');
  });

  it('are not written from a stale snapshot: a replica whose cache lacks the first CRD cannot give the second its names', async () => {
    const first = await call('POST', CRDS, crd('ones', 'Twin'));
    const second = await call('POST', CRDS, crd('twos', 'Twin'));
    expect([first.status, second.status]).toEqual([201, 201]);
    const url = `${CRDS}/twos.names.example.com`;
    await until(async () => conditions((await call('GET', url)).body).length > 0, 10_000);
    // Another replica, whose cache holds the second CRD as it was created but not the first, would accept its
    // names; its write is refused since the CRD changed after that snapshot.
    expect(decideNames(second.body as KubeObject, [second.body as KubeObject]).status).toBe('True');
    await reconcileNames([second.body as KubeObject], srv.ctx.registry);
    const twos = (await call('GET', url)).body;
    expect(conditions(twos)[0]).toEqual(['NamesAccepted', 'False', 'ListKindConflict', '"TwinList" is already in use']);
    expect((await call('GET', '/apis/names.example.com/v1/twos')).status).toBe(404);
  });

  it('created at once through two apiservers on one store end with one holder: one gets them, the other the conflict', async () => {
    const backend = new MemoryBackend();
    const replicas = [await createApiServer({ backend, logger: silentLogger() }), await createApiServer({ backend, logger: silentLogger() })];
    try {
      for (const r of replicas) await r.start();
      const via = replicas.map((r) => injectClient<Body>(() => r));
      const groups = ['one', 'two', 'three'].map((g) => `${g}.race.example.com`);
      const make = (group: string, plural: string) => crdObject({ group, names: { plural, kind: 'Contested' }, versions: [version('v1', schema)] });
      const posted = await Promise.all(groups.flatMap((g) => [via[0]!('POST', CRDS, make(g, 'lefts')), via[1]!('POST', CRDS, make(g, 'rights'))]));
      expect(posted.map((p) => p.status)).toEqual(groups.flatMap(() => [201, 201]));
      for (const g of groups) {
        const decided = async () => Promise.all(['lefts', 'rights'].map(async (p) => (await via[0]!('GET', `${CRDS}/${p}.${g}`)).body));
        await until(async () => (await decided()).every((c) => conditions(c).length > 0), 10_000);
        const accepted = (await decided()).map((c) => conditions(c)[0]?.[1]);
        expect(accepted.sort()).toEqual(['False', 'True']);
      }
    } finally {
      for (const r of replicas) await r.close();
    }
  });
});
