// Services through the REST handlers: the health check node port a LoadBalancer with externalTrafficPolicy
// Local gets, kept on an update that omits it, dropped when the policy goes back to Cluster.
import { describe, expect, it } from 'vitest';
import { memoryServerFixture } from '../testing/memory-server-fixture.ts';

const { call } = memoryServerFixture();

const SVCS = '/api/v1/namespaces/default/services';

describe('services: healthCheckNodePort', () => {
  it('is allocated for LoadBalancer + Local, kept when an update omits it, dropped back under Cluster', async () => {
    const created = await call('POST', SVCS, { metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', selector: { app: 'web' }, ports: [{ port: 80 }] } });
    expect(created.status).toBe(201);
    const hc = created.body.spec?.healthCheckNodePort as number;
    expect(hc).toBeGreaterThanOrEqual(30000);
    expect(hc).not.toBe((created.body.spec?.ports as { nodePort: number }[])[0]?.nodePort);
    const replaced = structuredClone(created.body) as { spec: Record<string, unknown> };
    delete replaced.spec.healthCheckNodePort;
    const put = await call('PUT', `${SVCS}/lb`, replaced);
    expect([put.status, put.body.spec?.healthCheckNodePort]).toEqual([200, hc]);
    const cluster = await call('PATCH', `${SVCS}/lb`, { spec: { externalTrafficPolicy: 'Cluster' } }, 'application/merge-patch+json');
    expect([cluster.status, cluster.body.spec?.healthCheckNodePort]).toEqual([200, undefined]);
    const bad = await call('POST', SVCS, { metadata: { name: 'np' }, spec: { type: 'NodePort', healthCheckNodePort: 31000, ports: [{ port: 80 }] } });
    expect([bad.status, bad.body.message]).toEqual([422, 'Service "np" is invalid: spec.healthCheckNodePort: Forbidden: may only be set when `type` is \'LoadBalancer\' and `externalTrafficPolicy` is \'Local\'']);
  });
});
