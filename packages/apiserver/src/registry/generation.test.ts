// metadata.generation only on kinds whose Kubernetes strategy tracks it (v1.31: deployments, replicasets,
// endpointslices here), never on pods, configmaps, services, namespaces, nodes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import type { ApiServer } from '../server.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv.close());

const send = async (method: string, url: string, body?: unknown, ct = 'application/json') => {
  const r = await srv.app.inject({ method: method as 'GET', url, headers: { 'content-type': ct }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
  return { status: r.statusCode, body: r.json() as { metadata: { generation?: number } } };
};

describe('metadata.generation', () => {
  it('is absent on pods, configmaps, services, namespaces and nodes, even when the client sends one', async () => {
    const cases: [string, unknown][] = [
      ['/api/v1/namespaces/default/pods', { metadata: { name: 'p', generation: 7 }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }],
      ['/api/v1/namespaces/default/configmaps', { metadata: { name: 'cm' }, data: { a: 'b' } }],
      ['/api/v1/namespaces/default/services', { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } }],
      ['/api/v1/namespaces', { metadata: { name: 'gen-ns' } }],
      ['/api/v1/nodes', { metadata: { name: 'n1' } }],
    ];
    for (const [url, body] of cases) {
      const c = await send('POST', url, body);
      expect(c.status, url).toBe(201);
      expect(c.body.metadata.generation, url).toBeUndefined();
    }
    const p = await send('PATCH', '/api/v1/namespaces/default/configmaps/cm', { data: { a: 'c' } }, 'application/merge-patch+json');
    expect(p.status).toBe(200);
    expect(p.body.metadata.generation).toBeUndefined();
    const svc = await send('PATCH', '/api/v1/namespaces/default/services/s', { spec: { ports: [{ port: 81 }] } }, 'application/merge-patch+json');
    expect(svc.status).toBe(200);
    expect(svc.body.metadata.generation).toBeUndefined();
  });

  it('starts at 1 and follows spec changes on deployments and endpointslices', async () => {
    const d = await send('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    expect(d.body.metadata.generation).toBe(1);
    const d2 = await send('PATCH', '/apis/apps/v1/namespaces/default/deployments/d', { spec: { replicas: 3 } }, 'application/merge-patch+json');
    expect(d2.body.metadata.generation).toBe(2);
    const es = await send('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', { metadata: { name: 'es' }, addressType: 'IPv4', endpoints: [] });
    expect(es.status).toBe(201);
    expect(es.body.metadata.generation).toBe(1);
    const es2 = await send('PATCH', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/es', { endpoints: [{ addresses: ['10.0.0.1'] }] }, 'application/merge-patch+json');
    expect(es2.status).toBe(200);
    expect(es2.body.metadata.generation).toBe(2);
  });
});
