// Webhook conversion against a real HTTPS conversion webhook: the review sent, the checks on its reply, and
// Kubernetes' error texts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type KubeObject, type ResourceInfo } from '@kemu/api';
import { cronTabConverter, startConversionWebhookServer, type ConversionWebhookServer } from '../testing/webhook-server.ts';
import { conversionWebhookOf, convertByWebhook, ConversionError, type ConversionWebhook } from './webhook-conversion.ts';

const ct = (name: string, apiVersion: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion, kind: 'CronTab', metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { a: 'b' } }, spec }) as unknown as KubeObject;

let good: ConversionWebhookServer;
let bad: ConversionWebhookServer;
let badReply: (req: { uid: string; objects: Array<Record<string, unknown>> }) => unknown = () => ({});
beforeAll(async () => {
  good = await startConversionWebhookServer(cronTabConverter);
  bad = await startConversionWebhookServer(cronTabConverter, { reply: (r) => badReply(r) });
});
afterAll(async () => {
  await good.close();
  await bad.close();
});

const hookAt = (s: ConversionWebhookServer, reviewVersions = ['v1']): ConversionWebhook => ({
  clientConfig: { url: s.url('/convert'), caBundle: s.caBundle },
  reviewVersions,
});
const subject = 'stable.example.com/v1beta1, Kind=CronTab';
const failure = (p: Promise<unknown>) => p.then(() => 'no error', (e: unknown) => (e instanceof ConversionError ? e.message : `other: ${String(e)}`));

describe('conversion webhook', () => {
  it('sends the objects not in the desired version in one v1 ConversionReview and keeps their order', async () => {
    const objs = [ct('a', 'stable.example.com/v1beta1', { cronSpec: '* * * * */5' }), ct('b', 'stable.example.com/v1', { schedule: { expression: '1 * * * *' } })];
    const out = await convertByWebhook({ hook: hookAt(good), objects: objs, desiredAPIVersion: 'stable.example.com/v1', subject, list: true });
    expect(out.map((o) => [o.apiVersion, o.metadata.name, (o as unknown as { spec: unknown }).spec])).toEqual([
      ['stable.example.com/v1', 'a', { schedule: { expression: '* * * * */5' } }],
      ['stable.example.com/v1', 'b', { schedule: { expression: '1 * * * *' } }],
    ]);
    const last = good.requests.at(-1);
    expect(last?.path).toBe('/convert?timeout=30s');
    expect(last?.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(last?.request.desiredAPIVersion).toBe('stable.example.com/v1');
    expect(last?.request.objects.map((o) => (o.metadata as { name: string }).name)).toEqual(['a']);
    expect(last?.request.uid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('the first review version the server knows is used (v1beta1 replies are not checked for uid)', async () => {
    const objs = [ct('a', 'stable.example.com/v1', { schedule: { expression: '2 * * * *' } })];
    const out = await convertByWebhook({ hook: hookAt(good, ['v9', 'v1beta1', 'v1']), objects: objs, desiredAPIVersion: 'stable.example.com/v1beta1', subject, list: false });
    expect(out[0]).toMatchObject({ apiVersion: 'stable.example.com/v1beta1', spec: { cronSpec: '2 * * * *' } });
    expect(good.requests.at(-1)?.apiVersion).toBe('apiextensions.k8s.io/v1beta1');
    expect(await failure(convertByWebhook({ hook: hookAt(good, ['v9']), objects: objs, desiredAPIVersion: 'stable.example.com/v1beta1', subject, list: false }))).toBe(
      'no supported conversion review versions',
    );
  });

  it('nothing to convert sends nothing', async () => {
    const before = good.requests.length;
    const objs = [ct('b', 'stable.example.com/v1', {})];
    expect(await convertByWebhook({ hook: hookAt(good), objects: objs, desiredAPIVersion: 'stable.example.com/v1', subject, list: false })).toEqual(objs);
    expect(good.requests.length).toBe(before);
  });

  it('metadata comes back as sent except labels and annotations', async () => {
    badReply = (r) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: r.uid,
        result: { status: 'Success' },
        convertedObjects: r.objects.map((o) => ({ ...o, apiVersion: 'stable.example.com/v1', metadata: { ...(o.metadata as object), labels: { c: 'd' }, generation: 99 } })),
      },
    });
    const [out] = await convertByWebhook({ hook: hookAt(bad), objects: [ct('a', 'stable.example.com/v1beta1', {})], desiredAPIVersion: 'stable.example.com/v1', subject, list: false });
    expect(out?.metadata).toEqual({ name: 'a', namespace: 'default', uid: 'uid-a', labels: { c: 'd' } });
  });

  it("bad replies fail with Kubernetes' texts", async () => {
    const one = [ct('a', 'stable.example.com/v1beta1', {})];
    const run = () => failure(convertByWebhook({ hook: hookAt(bad), objects: one, desiredAPIVersion: 'stable.example.com/v1', subject, list: false }));
    const ok = (r: { uid: string }, objs: unknown[]) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: r.uid, result: { status: 'Success' }, convertedObjects: objs } });
    badReply = () => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: 'nope', result: { status: 'Success' } } });
    expect(await run()).toMatch(/^conversion webhook for stable.example.com\/v1beta1, Kind=CronTab failed: expected response.uid="[0-9a-f-]{36}", got "nope"$/);
    badReply = (r) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: r.uid, result: { status: 'Failure', message: 'cannot convert' } } });
    expect(await run()).toBe(`conversion webhook for ${subject} failed: cannot convert`);
    badReply = (r) => ok(r, []);
    expect(await run()).toBe(`conversion webhook for ${subject} returned 0 objects, expected 1`);
    badReply = (r) => ok(r, r.objects);
    expect(await run()).toBe(`conversion webhook for ${subject} returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v1, received stable.example.com/v1beta1)`);
    badReply = (r) => ok(r, r.objects.map((o) => ({ ...o, apiVersion: 'stable.example.com/v1', metadata: { ...(o.metadata as object), name: 'other' } })));
    expect(await run()).toBe(`conversion webhook for ${subject} returned invalid object: must have the same name: a != other`);
    badReply = (r) => ok(r, r.objects.map((o) => ({ ...o, apiVersion: 'stable.example.com/v1', metadata: { ...(o.metadata as object), labels: { a: 7 } } })));
    expect(await run()).toBe(`conversion webhook for ${subject} returned invalid metadata: metadata.labels[a] must be a string, but is int64 in converted object`);
    badReply = () => ({ apiVersion: 'v1', kind: 'Status' });
    expect(await run()).toBe(`conversion webhook for ${subject} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /v1, Kind=Status`);
  });

  it('a webhook that is down fails with the POST error (?timeout=30s in the URL, as the REST client adds it)', async () => {
    const down = await startConversionWebhookServer(cronTabConverter);
    const hook = hookAt(down);
    await down.close();
    const msg = await failure(convertByWebhook({ hook, objects: [ct('a', 'stable.example.com/v1beta1', {})], desiredAPIVersion: 'stable.example.com/v1', subject, list: false }));
    expect(msg).toBe(`conversion webhook for ${subject} failed: Post "https://127.0.0.1:${down.port}/convert?timeout=30s": dial tcp 127.0.0.1:${down.port}: connect: connection refused`);
  });

  it("a Service reference reaches the webhook through the Service's Endpoints, verified as <svc>.<ns>.svc", async () => {
    const svcHook = await startConversionWebhookServer(cronTabConverter, { service: { name: 'conv', namespace: 'hooks' } });
    try {
      const svc = { metadata: { name: 'conv', namespace: 'hooks' }, spec: { ports: [{ name: 'https', port: 8443 }] } };
      const eps = { metadata: { name: 'conv', namespace: 'hooks' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: svcHook.port }] }] };
      const objs = new Map<ResourceInfo, unknown[]>([[R.services, [svc]], [R.endpoints, [eps]]]);
      const crd = {
        spec: {
          conversion: {
            strategy: 'Webhook',
            webhook: { clientConfig: { service: { namespace: 'hooks', name: 'conv', path: '/crontabs', port: 8443 }, caBundle: svcHook.caBundle }, conversionReviewVersions: ['v1'] },
          },
        },
      } as unknown as KubeObject;
      const hook = conversionWebhookOf(crd);
      expect(hook).toBeDefined();
      if (!hook) return;
      const [out] = await convertByWebhook({
        hook,
        objects: [ct('a', 'stable.example.com/v1', { schedule: { expression: '5 * * * *' } })],
        desiredAPIVersion: 'stable.example.com/v1beta1',
        subject: 'stable.example.com/v1, Kind=CronTab',
        list: false,
        listObjects: async (r) => (objs.get(r) ?? []) as KubeObject[],
      });
      expect(out).toMatchObject({ apiVersion: 'stable.example.com/v1beta1', spec: { cronSpec: '5 * * * *' } });
      expect(svcHook.requests.map((q) => q.path)).toEqual(['/crontabs?timeout=30s']);
      expect(conversionWebhookOf({ spec: { conversion: { strategy: 'None' } } } as unknown as KubeObject)).toBeUndefined();
    } finally {
      await svcHook.close();
    }
  });
});
