// --enable-aggregator-routing: off, the cluster IP is what Kubernetes dials and names (kemu reaches it through an
// endpoint, as kube-proxy); headless and unknown types cannot be routed to; on, an endpoint is dialled and named.
import { describe, expect, it } from 'vitest';
import { R, type KubeObject, type ResourceInfo } from '@kemu/api';
import type { ListObjects } from '../service-endpoint.ts';
import { resolveBackend } from './routing.ts';

const ref = { namespace: 'wardle', name: 'api', port: 443 };
const service = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'wardle' }, spec });
const endpoints: KubeObject = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api', namespace: 'wardle' }, subsets: [{ addresses: [{ ip: '10.244.1.7' }], ports: [{ name: 'https', port: 8443 }] }] };
const lister =
  (objects: Partial<Record<string, KubeObject[]>>): ListObjects =>
  async (r: ResourceInfo) =>
    objects[r.plural] ?? [];
const clusterIP = service({ type: 'ClusterIP', clusterIP: '10.96.0.20', ports: [{ name: 'https', port: 443, targetPort: 8443 }] });

describe('resolveBackend', () => {
  it('off: names the cluster IP and port, dials an endpoint behind it (none: nothing to dial)', async () => {
    expect(await resolveBackend(ref, lister({ [R.services.plural]: [clusterIP], [R.endpoints.plural]: [endpoints] }), false)).toEqual({ shown: { host: '10.96.0.20', port: 443 }, dial: { host: '10.244.1.7', port: 8443 } });
    expect(await resolveBackend(ref, lister({ [R.services.plural]: [clusterIP] }), false)).toEqual({ shown: { host: '10.96.0.20', port: 443 } });
    const ext = service({ type: 'ExternalName', externalName: 'wardle.example.net' });
    expect(await resolveBackend(ref, lister({ [R.services.plural]: [ext] }), false)).toEqual({ shown: { host: 'wardle.example.net', port: 443 }, dial: { host: 'wardle.example.net', port: 443 } });
  });

  it('off: refuses with Kubernetes words a headless Service, a missing port or Service', async () => {
    const headless = service({ type: 'ClusterIP', clusterIP: 'None', ports: [{ name: 'https', port: 443 }] });
    await expect(resolveBackend(ref, lister({ [R.services.plural]: [headless], [R.endpoints.plural]: [endpoints] }), false)).rejects.toThrow('cannot route to service with ClusterIP "None"');
    await expect(resolveBackend({ ...ref, port: 8080 }, lister({ [R.services.plural]: [clusterIP] }), false)).rejects.toThrow('no service port 8080 found for service "api"');
    await expect(resolveBackend(ref, lister({}), false)).rejects.toThrow('service "api" not found');
  });

  it('on: dials and names an endpoint; a headless Service is fine, ExternalName is not', async () => {
    const headless = service({ type: 'ClusterIP', clusterIP: 'None', ports: [{ name: 'https', port: 443 }] });
    const ep = { host: '10.244.1.7', port: 8443 };
    expect(await resolveBackend(ref, lister({ [R.services.plural]: [headless], [R.endpoints.plural]: [endpoints] }), true)).toEqual({ shown: ep, dial: ep });
    await expect(resolveBackend(ref, lister({ [R.services.plural]: [clusterIP] }), true)).rejects.toThrow('no endpoints available for service "api"');
    await expect(resolveBackend(ref, lister({ [R.services.plural]: [service({ type: 'ExternalName', externalName: 'x' })] }), true)).rejects.toThrow('unsupported service type "ExternalName"');
  });
});
