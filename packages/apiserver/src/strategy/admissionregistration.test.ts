// Webhook configurations through the server: Kubernetes' defaults, validation messages and Table columns.
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';

let srv: ApiServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const BASE = '/apis/admissionregistration.k8s.io/v1';

const hook = (extra: Record<string, unknown> = {}) => ({
  name: 'deny.example.com',
  clientConfig: { url: 'https://127.0.0.1:9443/validate' },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});

async function create(s: ApiServer, plural: string, webhooks: unknown[], name = 'x') {
  const kind = plural.startsWith('mutating') ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
  const r = await s.app.inject({ method: 'POST', url: `${BASE}/${plural}`, payload: { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks } });
  return { code: r.statusCode, body: r.json() as Record<string, unknown> & { message?: string; webhooks?: Array<Record<string, unknown>>; metadata?: { generation?: number } } };
}

describe('webhook configurations', () => {
  it('defaults every webhook as Kubernetes does and sets generation 1', async () => {
    srv = await startMemoryApiServer();
    const r = await create(srv, 'mutatingwebhookconfigurations', [hook({ clientConfig: { service: { namespace: 'default', name: 'hooks' } } })]);
    expect(r.code).toBe(201);
    expect(r.body.metadata?.generation).toBe(1);
    expect(r.body.webhooks?.[0]).toMatchObject({
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      reinvocationPolicy: 'Never',
      clientConfig: { service: { namespace: 'default', name: 'hooks', port: 443 } },
      rules: [{ scope: '*' }],
    });
  });

  it("refuses what Kubernetes' validation refuses, with its messages", async () => {
    srv = await startMemoryApiServer();
    const r = await create(srv, 'validatingwebhookconfigurations', [
      hook({ name: 'short', sideEffects: undefined, timeoutSeconds: 31, clientConfig: { url: 'http://h/x?a=b' } }),
      hook({ rules: [{ operations: ['*', 'CREATE'], apiGroups: [], apiVersions: ['v1'], resources: ['*/*', 'pods'], scope: 'Everywhere' }], matchConditions: [{ name: 'a', expression: 'true' }, { name: 'a', expression: '' }] }),
    ]);
    expect(r.code).toBe(422);
    expect(r.body.message).toBe(
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "x" is invalid: [' +
        [
          'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
          'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
          'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
          `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme`,
          'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL',
          `webhooks[1].rules[0].operations: Invalid value: []string{"*", "CREATE"}: if '*' is present, must not specify other operations`,
          'webhooks[1].rules[0].apiGroups: Required value',
          `webhooks[1].rules[0].resources: Invalid value: []string{"*/*", "pods"}: if '*/*' is present, must not specify other resources`,
          'webhooks[1].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
          'webhooks[1].matchConditions[1].name: Duplicate value: "a"',
          'webhooks[1].matchConditions[1].expression: Required value',
        ].join(', ') +
        ']',
    );
    const dup = await create(srv, 'validatingwebhookconfigurations', [hook(), hook({ clientConfig: {} })]);
    expect(dup.body.message).toContain('webhooks[1].name: Duplicate value: "deny.example.com"');
    expect(dup.body.message).toContain('webhooks[1].clientConfig: Required value: exactly one of url or service is required');
  });

  it('kubectl get prints NAME, WEBHOOKS, AGE', async () => {
    srv = await startMemoryApiServer();
    expect((await create(srv, 'validatingwebhookconfigurations', [hook(), hook({ name: 'other.example.com' })], 'two')).code).toBe(201);
    const r = await srv.app.inject({ method: 'GET', url: `${BASE}/validatingwebhookconfigurations`, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    const t = r.json() as { columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[] }> };
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Webhooks', 'Age']);
    expect(t.rows[0]?.cells.slice(0, 2)).toEqual(['two', 2]);
  });
});
