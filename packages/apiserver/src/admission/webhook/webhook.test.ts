// Admission webhooks through the server, against a real HTTPS webhook on 127.0.0.1: refusals, JSONPatch
// mutation, warnings, failurePolicy with the webhook down, timeouts, a Service reference through a selector-less
// Service and its Endpoints, dry run and sideEffects, matchConditions in CEL, reinvocation.
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../server.ts';
import { startMemoryApiServer } from '../../testing/memory-server.ts';
import { patchReply, startWebhookServer, type WebhookServer } from '../../testing/webhook-server.ts';
import { validatingAdmissionWebhookPlugin } from './dispatch.ts';
import { R, StatusError, type KubeObject } from '@kemu/api';
import { parsePolicy } from '../../audit/policy.ts';
import type { AuditEvent } from '../../audit/event.ts';

let srv: ApiServer | undefined;
const hooks: WebhookServer[] = [];
afterEach(async () => {
  await srv?.close();
  srv = undefined;
  await Promise.all(hooks.splice(0).map((h) => h.close()));
});

const AR = '/apis/admissionregistration.k8s.io/v1';
type Reply = { code: number; body: Record<string, unknown> & { message?: string; metadata?: { labels?: Record<string, string> } }; warning: string | string[] | undefined };

async function req(s: ApiServer, method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<Reply> {
  const r = await s.app.inject({ method, url, ...(body ? { payload: body as Record<string, unknown> } : {}) });
  return { code: r.statusCode, body: r.json() as Reply['body'], warning: r.headers.warning };
}

function webhook(name: string, clientConfig: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig,
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

async function configure(s: ApiServer, kind: 'Mutating' | 'Validating', name: string, webhooks: unknown[]) {
  const r = await req(s, 'POST', `${AR}/${kind.toLowerCase()}webhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks });
  expect(r.code, r.body.message).toBe(201);
}

const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: 'b' } });
const CMS = '/api/v1/namespaces/default/configmaps';

describe('admission webhooks', () => {
  it('a validating webhook that denies: the AdmissionReview Kubernetes sends, and its refusal', async () => {
    srv = await startMemoryApiServer();
    const wh = await startWebhookServer((r) => (r.name === 'bad' ? { allowed: false, status: { code: 403, message: 'bad names are refused' } } : { allowed: true }));
    hooks.push(wh);
    await configure(srv, 'Validating', 'deny', [webhook('deny.example.com', { url: wh.url('/validate'), caBundle: wh.caBundle })]);
    const r = await req(srv, 'POST', CMS, cm('bad'));
    expect(r.code).toBe(403);
    expect(r.body.message).toBe('admission webhook "deny.example.com" denied the request: bad names are refused');
    expect((await req(srv, 'POST', CMS, cm('good'))).code).toBe(201);
    const sent = wh.requests[0];
    expect(sent?.path).toBe('/validate?timeout=10s');
    expect(sent?.request).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
      requestResource: { group: '', version: 'v1', resource: 'configmaps' },
      name: 'bad',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'system:unsecured' },
      object: { kind: 'ConfigMap', metadata: { name: 'bad' } },
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    });
    expect(sent?.request.uid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a mutating webhook adds a label by JSONPatch; its warnings reach the client, its audit annotations the audit event', async () => {
    const events: AuditEvent[] = [];
    const policy = parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "", resources: [configmaps]}]\n');
    srv = await startMemoryApiServer({ audit: { policy, sink: { write: (l) => events.push(JSON.parse(l) as AuditEvent), close: () => undefined }, format: 'json' } });
    const wh = await startWebhookServer(() => patchReply([{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }], { warnings: ['labelled by the webhook'], auditAnnotations: { why: 'test' } }));
    hooks.push(wh);
    await configure(srv, 'Mutating', 'label', [webhook('label.example.com', { url: wh.url('/mutate'), caBundle: wh.caBundle })]);
    const r = await req(srv, 'POST', CMS, cm('m', { app: 'x' }));
    expect(r.code).toBe(201);
    expect(r.body.metadata?.labels).toEqual({ app: 'x', mutated: 'yes' });
    expect(r.warning).toBe('299 - "labelled by the webhook"');
    const done = events.find((e) => e.stage === 'ResponseComplete' && e.verb === 'create');
    expect(done?.annotations).toMatchObject({ 'label.example.com/why': 'test' });
    const u = await req(srv, 'PUT', `${CMS}/m`, { ...cm('m', { app: 'y' }) });
    expect(u.code).toBe(200);
    expect(u.body.metadata?.labels).toEqual({ app: 'y', mutated: 'yes' });
    expect(wh.requests[1]?.request).toMatchObject({ operation: 'UPDATE', oldObject: { metadata: { labels: { app: 'x', mutated: 'yes' } } }, options: { kind: 'UpdateOptions' } });
  });

  it('failurePolicy: Fail refuses with "failed calling webhook", Ignore admits, when the webhook is down', async () => {
    srv = await startMemoryApiServer();
    const wh = await startWebhookServer(() => ({ allowed: true }));
    const port = wh.port;
    await wh.close();
    await configure(srv, 'Validating', 'down', [webhook('down.example.com', { url: `https://127.0.0.1:${port}/v`, caBundle: wh.caBundle })]);
    const r = await req(srv, 'POST', CMS, cm('a'));
    expect(r.code).toBe(500);
    expect(r.body.message).toBe(
      `Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:${port}/v?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    await req(srv, 'DELETE', `${AR}/validatingwebhookconfigurations/down`);
    await configure(srv, 'Validating', 'down-ignored', [webhook('down.example.com', { url: `https://127.0.0.1:${port}/v`, caBundle: wh.caBundle }, { failurePolicy: 'Ignore' })]);
    expect((await req(srv, 'POST', CMS, cm('a'))).code).toBe(201);
  });

  it('timeoutSeconds: a webhook that does not answer in time fails the call', async () => {
    srv = await startMemoryApiServer();
    let release: () => void = () => undefined;
    const stuck = new Promise<void>((r) => (release = r));
    const wh = await startWebhookServer(async () => {
      await stuck;
      return { allowed: true };
    });
    hooks.push(wh);
    await configure(srv, 'Validating', 'slow', [webhook('slow.example.com', { url: wh.url('/slow'), caBundle: wh.caBundle }, { timeoutSeconds: 1 })]);
    const r = await req(srv, 'POST', CMS, cm('a'));
    release();
    expect(r.code).toBe(500);
    expect(r.body.message).toBe(`Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${wh.url('/slow')}?timeout=1s": context deadline exceeded`);
  });

  it('a service reference reaches a webhook on the host through a selector-less Service and its Endpoints', async () => {
    srv = await startMemoryApiServer();
    const wh = await startWebhookServer(() => ({ allowed: false, status: { message: 'through the service' } }), { service: { name: 'hooks', namespace: 'default' } });
    hooks.push(wh);
    expect((await req(srv, 'POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks' }, spec: { ports: [{ port: 443, targetPort: wh.port }] } })).code).toBe(201);
    const svcRef = { service: { namespace: 'default', name: 'hooks', path: '/check' }, caBundle: wh.caBundle };
    await configure(srv, 'Validating', 'svc', [webhook('svc.example.com', svcRef)]);
    const noEndpoints = await req(srv, 'POST', CMS, cm('a'));
    expect(noEndpoints.body.message).toBe('Internal error occurred: failed calling webhook "svc.example.com": could not get REST client: no endpoints available for service "hooks"');
    const ep = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hooks' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: wh.port }] }] };
    expect((await req(srv, 'POST', '/api/v1/namespaces/default/endpoints', ep)).code).toBe(201);
    const r = await req(srv, 'POST', CMS, cm('a'));
    expect(r.code).toBe(400);
    expect(r.body.message).toBe('admission webhook "svc.example.com" denied the request: through the service');
    expect(wh.requests[0]?.path).toBe('/check?timeout=10s');
  });

  it('dry run: the webhook is told, and one with side effects refuses a dry-run request', async () => {
    srv = await startMemoryApiServer();
    const wh = await startWebhookServer(() => ({ allowed: true }));
    hooks.push(wh);
    await configure(srv, 'Validating', 'dry', [webhook('dry.example.com', { url: wh.url('/'), caBundle: wh.caBundle }, { sideEffects: 'NoneOnDryRun' })]);
    expect((await req(srv, 'POST', `${CMS}?dryRun=All`, cm('a'))).code).toBe(201);
    expect(wh.requests[0]?.request).toMatchObject({ dryRun: true, options: { dryRun: ['All'] } });
    // Some and Unknown can no longer be created through v1; a configuration kept from v1beta1 may still carry them.
    const config = { metadata: { name: 'old' }, webhooks: [webhook('some.example.com', { url: wh.url('/') }, { sideEffects: 'Some' })] } as unknown as KubeObject;
    const attrs = { operation: 'CREATE' as const, resource: R.configmaps, namespace: 'default', name: 'a', object: cm('a') as unknown as KubeObject, dryRun: true };
    const err = await validatingAdmissionWebhookPlugin.validate?.(attrs, { listObjects: async (r) => (r === R.validatingwebhookconfigurations ? [config] : []) })?.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(400);
    expect((err as StatusError).message).toBe('admission webhook "some.example.com" does not support dry run');
  });

  it('selectors and matchConditions decide which requests are sent', async () => {
    srv = await startMemoryApiServer();
    const wh = await startWebhookServer(() => ({ allowed: false, status: { message: 'no' } }));
    hooks.push(wh);
    const cc = { url: wh.url('/'), caBundle: wh.caBundle };
    await configure(srv, 'Validating', 'sel', [
      webhook('objsel.example.com', cc, { objectSelector: { matchLabels: { checked: 'yes' } } }),
      webhook('nssel.example.com', cc, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-public' } } }),
    ]);
    expect((await req(srv, 'POST', CMS, cm('plain'))).code).toBe(201);
    expect((await req(srv, 'POST', CMS, cm('checked', { checked: 'yes' }))).body.message).toBe('admission webhook "objsel.example.com" denied the request: no');
    expect((await req(srv, 'POST', '/api/v1/namespaces/kube-public/configmaps', cm('x'))).body.message).toBe('admission webhook "nssel.example.com" denied the request: no');
    await req(srv, 'DELETE', `${AR}/validatingwebhookconfigurations/sel`);
    // matchConditions in CEL: a false condition skips the webhook; an error fails closed (403) unless failurePolicy is Ignore.
    const conds = { matchConditions: [{ name: 'not-skipped', expression: "object.metadata.name != 'skip-me'" }, { name: 'is-cm', expression: "request.kind.kind == 'ConfigMap'" }] };
    await configure(srv, 'Validating', 'cel', [webhook('cel.example.com', cc, conds)]);
    expect((await req(srv, 'POST', CMS, cm('skip-me'))).code).toBe(201);
    expect((await req(srv, 'POST', CMS, cm('c'))).body.message).toBe('admission webhook "cel.example.com" denied the request: no');
    await req(srv, 'DELETE', `${AR}/validatingwebhookconfigurations/cel`);
    const broken = { matchConditions: [{ name: 'broken', expression: 'object.metadata.labels.missing == "x"' }] };
    await configure(srv, 'Validating', 'cel-fail', [webhook('cel.example.com', cc, broken)]);
    const r = await req(srv, 'POST', CMS, cm('c'));
    expect(r.code).toBe(403);
    expect(r.body.message).toMatch(/^configmaps "c" is forbidden: matchCondition 'broken': expression .* resulted in error: /);
    await req(srv, 'DELETE', `${AR}/validatingwebhookconfigurations/cel-fail`);
    await configure(srv, 'Validating', 'cel-ignore', [webhook('cel.example.com', cc, { ...broken, failurePolicy: 'Ignore' })]);
    expect((await req(srv, 'POST', CMS, cm('c'))).code).toBe(201);
  });

  it('reinvocationPolicy IfNeeded: a mutating webhook runs again after a later one changed the object', async () => {
    srv = await startMemoryApiServer();
    const first = await startWebhookServer((r) => {
      const labels = ((r.object?.metadata as { labels?: Record<string, string> } | undefined)?.labels) ?? {};
      return labels.second ? patchReply([{ op: 'add', path: '/metadata/labels/first-saw-second', value: 'yes' }]) : patchReply([{ op: 'add', path: '/metadata/labels/first', value: 'yes' }]);
    });
    const second = await startWebhookServer(() => patchReply([{ op: 'add', path: '/metadata/labels/second', value: 'yes' }]));
    hooks.push(first, second);
    await configure(srv, 'Mutating', 'a', [webhook('first.example.com', { url: first.url('/'), caBundle: first.caBundle }, { reinvocationPolicy: 'IfNeeded' })]);
    await configure(srv, 'Mutating', 'b', [webhook('second.example.com', { url: second.url('/'), caBundle: second.caBundle })]);
    const r = await req(srv, 'POST', CMS, cm('r', { app: 'x' }));
    expect(r.code).toBe(201);
    expect(r.body.metadata?.labels).toEqual({ app: 'x', first: 'yes', second: 'yes', 'first-saw-second': 'yes' });
    expect(first.requests).toHaveLength(2);
    expect(second.requests).toHaveLength(1);
  });
});
