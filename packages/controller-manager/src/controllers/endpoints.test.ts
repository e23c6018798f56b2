import { afterEach, describe, expect, it } from 'vitest';
import { R, type EndpointSlice, type Endpoints, type Pod, type Service } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { EndpointsController } from './endpoints.ts';
import { EndpointSliceController, LABEL_MANAGED_BY, LABEL_SERVICE_NAME, MANAGED_BY, desiredSlices } from './endpointslice.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

const svc: Service = {
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] },
};

function pod(name: string, ip: string, ready: boolean, extra: Partial<Pod['metadata']> = {}): Pod {
  return {
    metadata: { name, namespace: 'default', labels: { app: 'web' }, uid: `uid-${name}`, ...extra },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] },
    status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

describe('endpoints and endpointslice controllers', () => {
  it('publish ready and not-ready pods, follow readiness, drop deleted pods', async () => {
    const env = fakeContext();
    envs.push(env);
    const { api } = env;
    await api.create<Service>(R.services, 'default', svc);
    await api.create<Pod>(R.pods, 'default', pod('a', '10.0.0.2', true));
    await api.create<Pod>(R.pods, 'default', pod('b', '10.0.0.3', false));
    await api.create<Pod>(R.pods, 'default', { ...pod('other', '10.0.0.9', true), metadata: { name: 'other', namespace: 'default', labels: { app: 'db' } } });
    const ep = new EndpointsController(env.ctx);
    const es = new EndpointSliceController(env.ctx);
    env.informers.start(env.abort.signal);
    void ep.run();
    void es.run();
    await settle();

    const e = await api.get<Endpoints>(R.endpoints, 'default', 'web');
    const uidOf = async (n: string) => (await api.get<Pod>(R.pods, 'default', n)).metadata.uid;
    expect(e.subsets).toEqual([
      {
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        addresses: [{ ip: '10.0.0.2', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: await uidOf('a') } }],
        notReadyAddresses: [{ ip: '10.0.0.3', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: await uidOf('b') } }],
      },
    ]);
    const slices = () => api.all<EndpointSlice>(R.endpointslices, 'default');
    expect(slices()).toHaveLength(1);
    const s = slices()[0]!;
    expect(s.metadata.labels).toMatchObject({ [LABEL_SERVICE_NAME]: 'web', [LABEL_MANAGED_BY]: MANAGED_BY });
    expect(s.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Service', name: 'web', controller: true });
    expect(s.addressType).toBe('IPv4');
    expect(s.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    expect(s.endpoints?.map((x) => [x.addresses[0], x.conditions])).toEqual([
      ['10.0.0.2', { ready: true, serving: true, terminating: false }],
      ['10.0.0.3', { ready: false, serving: false, terminating: false }],
    ]);

    await api.patch(R.pods, 'default', 'b', { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, 'merge', { subresource: 'status' });
    await api.delete(R.pods, 'default', 'a', { gracePeriodSeconds: 0 });
    await settle();
    expect((await api.get<Endpoints>(R.endpoints, 'default', 'web')).subsets?.[0]?.addresses?.map((a) => a.ip)).toEqual(['10.0.0.3']);
    expect(slices()[0]?.endpoints?.map((x) => x.addresses[0])).toEqual(['10.0.0.3']);

    await api.delete(R.services, 'default', 'web');
    await settle();
    expect(api.all(R.endpoints, 'default')).toEqual([]);
    expect(slices()).toEqual([]);
  });

  it('splits slices at 100 endpoints', () => {
    const pods = Array.from({ length: 250 }, (_, i) => pod(`p${i}`, `10.1.${Math.floor(i / 200)}.${i % 200}`, true));
    const d = desiredSlices(svc, pods);
    expect(d.map((x) => x.endpoints.length)).toEqual([100, 100, 50]);
  });
});
