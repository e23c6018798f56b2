// Odd spec.clusterIPs / ipFamilies / ipFamilyPolicy values through the REST API, on a dual-stack and a
// single-stack server: each is a 201 or a 4xx with a Status, never a 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import type { ApiServer } from '../server.ts';

const SPECS: Record<string, unknown>[] = [
  { ipFamilies: 'IPv4' },
  { ipFamilies: [4] },
  { ipFamilies: ['IPv6', 'IPv6'] },
  { ipFamilies: ['IPv4', 'IPv6', 'IPv4'], ipFamilyPolicy: 'RequireDualStack' },
  { ipFamilyPolicy: { a: 1 } },
  { ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4', 'IPv6'] },
  { clusterIPs: 'fd00:1111::5' },
  { clusterIP: 'fd00:1111::5', clusterIPs: ['fd00:1111::5', '10.96.0.5'], ipFamilyPolicy: 'PreferDualStack' },
  { clusterIP: '10.96.0.6', clusterIPs: ['10.96.0.6', null] },
  { clusterIP: '10.96.0.7', clusterIPs: ['10.96.0.7', ''] , ipFamilyPolicy: 'RequireDualStack' },
  { clusterIP: 'None', ipFamilies: ['IPv6', 'IPv4'] },
  { clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4', 'IPv6'] },
  { clusterIP: '::ffff:10.96.0.8' },
  { clusterIP: 'fd00:1111::ffff:ffff' },
  { type: 'ExternalName', externalName: 'example.com', ipFamilies: ['IPv6'], ipFamilyPolicy: 'RequireDualStack' },
];

describe.each([
  ['dual-stack', '10.96.0.0/24,fd00:1111::/112'],
  ['single-stack', '10.96.0.0/24'],
])('odd IP family input on a %s server', (_name, range) => {
  let srv: ApiServer;
  beforeAll(async () => {
    srv = await startMemoryApiServer({ serviceClusterIPRange: range });
  });
  afterAll(async () => srv.close());

  it.each(SPECS.map((s, i) => [i, s] as const))('spec %i: 201 or 4xx', async (i, spec) => {
    const r = await srv.app.inject({
      method: 'POST',
      url: '/api/v1/namespaces/default/services',
      payload: { metadata: { name: `odd-${i}` }, spec: { ports: [{ port: 80 }], ...spec } },
    });
    expect(r.statusCode, r.body).toBeLessThan(500);
    if (r.statusCode !== 201) expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', status: 'Failure' });
  });
});
