// CustomResourceDefinitions through the REST API (fastify.inject): v1 defaults, the conditions and accepted
// names a new definition gets, storedVersions, Kubernetes' validation messages, immutable group and plural,
// and the NAME / CREATED AT columns of kubectl get crd.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '@kemu/api';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
let srv: ApiServer;

beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv?.close());

type Body = KubeObject & { message?: string; spec?: Record<string, any>; status?: Record<string, any> } & Record<string, any>;
async function call(method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: unknown, contentType = 'application/json', accept?: string) {
  const headers: Record<string, string> = { 'content-type': contentType, ...(accept ? { accept } : {}) };
  const r = await srv.app.inject({ method, url, headers, ...(body ? { payload: JSON.stringify(body) } : {}) });
  return { status: r.statusCode, body: r.json() as Body };
}

/** The kubernetes.io CronTab example. */
export const cronTabCRD = (over: Record<string, unknown> = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' }, image: { type: 'string' }, replicas: { type: 'integer' } } } },
          },
        },
      },
    ],
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
    ...over,
  },
});

describe('CustomResourceDefinition', () => {
  it('is created with v1 defaults and its storage version, then gets NamesAccepted, Installing and Established in turn', async () => {
    const before = (await call('GET', CRDS)).body.metadata.resourceVersion as string;
    const crd = cronTabCRD();
    delete (crd.spec.names as Record<string, unknown>).singular;
    const r = await call('POST', CRDS, crd);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.spec).toMatchObject({
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'] },
      conversion: { strategy: 'None' },
    });
    expect(r.body.metadata.generation).toBe(1);
    // As Kubernetes answers a create: nothing accepted yet, no conditions.
    expect(r.body.status).toEqual({ acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    const url = `${CRDS}/crontabs.stable.example.com`;
    const deadline = Date.now() + 10_000;
    while ((await call('GET', '/apis/stable.example.com/v1/crontabs')).status !== 200) {
      if (Date.now() > deadline) throw new Error('crontabs not served');
      await new Promise((res) => setTimeout(res, 10));
    }
    const got = (await call('GET', url)).body;
    expect(got.status?.acceptedNames).toEqual(got.spec?.names);
    const w = await srv.app.inject({ method: 'GET', url: `${CRDS}?watch=true&resourceVersion=${before}&fieldSelector=metadata.name%3Dcrontabs.stable.example.com&timeoutSeconds=1` });
    const seen = w.body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; object: Body })
      .map((e) => [e.type, ...((e.object.status?.conditions ?? []) as Body[]).map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`)]);
    expect(seen).toEqual([
      ['ADDED'],
      ['MODIFIED', 'NamesAccepted=True NoConflicts: no conflicts found', 'Established=False Installing: the initial names have been accepted'],
      ['MODIFIED', 'NamesAccepted=True NoConflicts: no conflicts found', 'Established=True InitialNamesAccepted: the initial names have been accepted'],
    ]);
  });

  it('is listed by kubectl get crd with NAME and CREATED AT', async () => {
    const r = await call('GET', CRDS, undefined, 'application/json', TABLE);
    expect(r.status).toBe(200);
    expect((r.body.columnDefinitions as { name: string }[]).map((c) => c.name)).toEqual(['Name', 'Created At']);
    const row = (r.body.rows as { cells: unknown[] }[]).find((x) => x.cells[0] === 'crontabs.stable.example.com');
    expect(row?.cells[1]).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("refuses a name that is not <plural>.<group> and a group without a dot, with Kubernetes' messages", async () => {
    const bad = cronTabCRD({ group: 'example' });
    const r = await call('POST', CRDS, bad);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "crontabs.stable.example.com" is invalid: [metadata.name: Invalid value: "crontabs.stable.example.com": must be spec.names.plural+"."+spec.group, spec.group: Invalid value: "example": should be a domain with at least one dot]',
    );
  });

  it('refuses two storage versions, a missing schema, a bad scope and a bad kind', async () => {
    const v = (name: string, extra: Record<string, unknown> = {}) => ({ name, served: true, storage: true, ...extra });
    const bad = cronTabCRD({ versions: [v('v1', { schema: { openAPIV3Schema: { type: 'object' } } }), v('v2')], scope: 'Global' });
    (bad.spec.names as Record<string, unknown>).kind = 'Cron_Tab';
    const r = await call('POST', CRDS, bad);
    expect(r.status).toBe(422);
    const causes = (r.body.details as { causes: { field: string; message: string }[] }).causes;
    expect(causes).toEqual(
      expect.arrayContaining([
        { reason: 'FieldValueNotSupported', field: 'spec.scope', message: 'Unsupported value: "Global": supported values: "Cluster", "Namespaced"' },
        { reason: 'FieldValueRequired', field: 'spec.versions[1].schema.openAPIV3Schema', message: 'Required value: schemas are required' },
        expect.objectContaining({ field: 'spec.versions', message: expect.stringContaining('must have exactly one version marked as storage version') }),
        expect.objectContaining({ field: 'spec.names.kind', message: expect.stringContaining('Invalid value: "Cron_Tab": may have mixed case, but should otherwise match: a DNS-1035 label') }),
      ]),
    );
  });

  it("checks a Webhook conversion's client config and review versions, and refuses them with None, with the internal type's paths", async () => {
    const causes = async (conversion: Record<string, unknown>) => {
      const r = await call('POST', CRDS, cronTabCRD({ conversion }));
      expect(r.status).toBe(422);
      return ((r.body.details as { causes: { field: string; message: string }[] }).causes).map((c) => `${c.field}: ${c.message}`);
    };
    expect(await causes({ strategy: 'Webhook' })).toEqual(['spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook', 'spec.conversion.conversionReviewVersions: Required value']);
    expect(await causes({ strategy: 'Webhook', webhook: { clientConfig: { url: 'http://example.com/convert' }, conversionReviewVersions: ['v2', 'v2'] } })).toEqual([
      "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme",
      'spec.conversion.conversionReviewVersions[1]: Duplicate value: "v2"',
      'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2", "v2"}: must include at least one of v1, v1beta1',
    ]);
    expect(await causes({ strategy: 'None', webhook: { clientConfig: { service: { name: 'conv', namespace: 'default' } }, conversionReviewVersions: ['v1'] } })).toEqual([
      'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
      'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ]);
    const good = cronTabCRD({ group: 'conv.example.com', conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 'conv', namespace: 'default' } }, conversionReviewVersions: ['v1'] } } });
    good.metadata.name = 'crontabs.conv.example.com';
    const ok = await call('POST', CRDS, good);
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.spec?.conversion).toEqual({ strategy: 'Webhook', webhook: { clientConfig: { service: { name: 'conv', namespace: 'default', port: 443 } }, conversionReviewVersions: ['v1'] } });
  });

  it('keeps group and plural immutable, and kind and scope once Established', async () => {
    const cur = (await call('GET', `${CRDS}/crontabs.stable.example.com`)).body;
    const next = structuredClone(cur);
    next.spec!.scope = 'Cluster';
    next.spec!.names.kind = 'Other';
    const r = await call('PUT', `${CRDS}/crontabs.stable.example.com`, next);
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.scope: Invalid value: "Cluster": field is immutable');
    expect(r.body.message).toContain('spec.names.kind: Invalid value: "Other": field is immutable');
  });

  it('records a new storage version in storedVersions and bumps the generation', async () => {
    const cur = (await call('GET', `${CRDS}/crontabs.stable.example.com`)).body;
    const schema = cur.spec!.versions[0].schema;
    const next = structuredClone(cur);
    next.spec!.versions = [
      { name: 'v1', served: true, storage: false, schema },
      { name: 'v2', served: true, storage: true, schema },
    ];
    const r = await call('PUT', `${CRDS}/crontabs.stable.example.com`, next);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.status?.storedVersions).toEqual(['v1', 'v2']);
    expect(r.body.metadata.generation).toBe(2);
  });

  it('is deleted after its objects, through Terminating InstanceDeletionPending then InstanceDeletionInProgress', async () => {
    const gone = cronTabCRD({ group: 'gone.example.com', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' } });
    gone.metadata.name = 'widgets.gone.example.com';
    expect((await call('POST', CRDS, gone)).status).toBe(201);
    const objects = '/apis/gone.example.com/v1/namespaces/default/widgets';
    const until = async (check: () => Promise<boolean>) => {
      const deadline = Date.now() + 10_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error('condition not reached');
        await new Promise((res) => setTimeout(res, 10));
      }
    };
    await until(async () => (await call('GET', objects)).status === 200);
    expect((await call('POST', objects, { apiVersion: 'gone.example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).status).toBe(201);
    const before = (await call('GET', CRDS)).body.metadata.resourceVersion as string;
    const r = await srv.app.inject({ method: 'DELETE', url: `${CRDS}/widgets.gone.example.com` });
    expect(r.statusCode).toBe(200);
    await until(async () => (await call('GET', `${CRDS}/widgets.gone.example.com`)).status === 404);
    const w = await srv.app.inject({ method: 'GET', url: `${CRDS}?watch=true&resourceVersion=${before}&fieldSelector=metadata.name%3Dwidgets.gone.example.com&timeoutSeconds=1` });
    const terminating = w.body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; object: Body })
      .map((e) => {
        const c = ((e.object.status?.conditions ?? []) as Body[]).find((x) => x.type === 'Terminating');
        return `${e.type} ${c?.status} ${c?.reason}: ${c?.message}`;
      });
    expect(terminating).toEqual([
      'MODIFIED True InstanceDeletionPending: CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      'MODIFIED True InstanceDeletionInProgress: CustomResource deletion is in progress',
      // The finalizer's removal deletes it: the event shows the last stored object, as etcd's does.
      'DELETED True InstanceDeletionInProgress: CustomResource deletion is in progress',
    ]);
  });
});
