// A Service reference resolved to an address: the Service's port, then its Endpoints, else its EndpointSlices.
import { describe, expect, it } from 'vitest';
import { R, type KubeObject, type ResourceInfo } from '@kemu/api';
import { webhookTarget, WebhookCallError } from './client.ts';

const svc = { metadata: { name: 'hooks', namespace: 'ns' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] } } as unknown as KubeObject;
const slice = {
  metadata: { name: 'hooks-abc', namespace: 'ns', labels: { 'kubernetes.io/service-name': 'hooks' } },
  addressType: 'IPv4',
  ports: [{ name: 'https', port: 9443 }],
  endpoints: [{ addresses: ['10.0.0.9'], conditions: { ready: false } }, { addresses: ['127.0.0.1'], conditions: { ready: true } }],
} as unknown as KubeObject;

const ctxWith = (objs: Map<ResourceInfo, KubeObject[]>) => ({ listObjects: async (r: ResourceInfo) => objs.get(r) ?? [] });
const ref = (port?: number) => ({ service: { namespace: 'ns', name: 'hooks', path: '/v', ...(port ? { port } : {}) } });

describe('webhook service resolution', () => {
  it('a Service with only EndpointSlices resolves to a ready address, named as <svc>.<ns>.svc for TLS', async () => {
    const t = await webhookTarget(ref(), ctxWith(new Map([[R.services, [svc]], [R.endpointslices, [slice]]])));
    expect(t).toMatchObject({ host: '127.0.0.1', port: 9443, servername: 'hooks.ns.svc' });
    expect(t.url.toString()).toBe('https://hooks.ns.svc/v');
  });

  it("Kubernetes' errors: no such Service, no such port, no endpoints", async () => {
    const fail = (p: Promise<unknown>) => p.then(() => '', (e: unknown) => (e instanceof WebhookCallError ? e.message : String(e)));
    expect(await fail(webhookTarget(ref(), ctxWith(new Map())))).toBe('could not get REST client: service "hooks" not found');
    expect(await fail(webhookTarget(ref(8443), ctxWith(new Map([[R.services, [svc]]]))))).toBe('could not get REST client: no service port 8443 found for service "hooks"');
    expect(await fail(webhookTarget(ref(), ctxWith(new Map([[R.services, [svc]]]))))).toBe('could not get REST client: no endpoints available for service "hooks"');
  });
});
