// LimitRanger and ResourceQuota over HTTP (fastify inject), with Kubernetes' exact messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import type { ApiServer } from '../server.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
  for (const ns of ['lr', 'lr2', 'rq', 'rq2', 'rq3']) await call('POST', '/api/v1/namespaces', { metadata: { name: ns } });
});
afterAll(async () => srv.close());

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
async function call(method: string, url: string, body?: unknown) {
  const r = await srv.app.inject({ method: method as 'GET', url, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
  return { status: r.statusCode, body: r.json() as Json };
}
const pod = (name: string, resources?: Json) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx', ...(resources ? { resources } : {}) }] } });

describe('LimitRanger', () => {
  it('defaults requests and limits from a Container LimitRange and says so in the annotation', async () => {
    const lr = await call('POST', '/api/v1/namespaces/lr/limitranges', {
      metadata: { name: 'defaults' },
      spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '250m' }, max: { cpu: '1' } }] },
    });
    expect(lr.status).toBe(201);
    expect(lr.body.spec.limits[0].defaultRequest).toEqual({ cpu: '250m', memory: '256Mi' });
    const r = await call('POST', '/api/v1/namespaces/lr/pods', pod('p1'));
    expect(r.status).toBe(201);
    expect(r.body.spec.containers[0].resources).toEqual({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m', memory: '256Mi' } });
    expect(r.body.metadata.annotations['kubernetes.io/limit-ranger']).toBe('LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c');
  });

  it('refuses a container above max with Kubernetes message', async () => {
    const r = await call('POST', '/api/v1/namespaces/lr/pods', pod('p2', { limits: { cpu: '2' } }));
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('pods "p2" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });
});

describe('LimitRanger on claims', () => {
  const claim = (name: string, storage?: string) => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: storage ? { requests: { storage } } : {} } });
  it('holds a claim to the PersistentVolumeClaim min and max storage', async () => {
    const lr = await call('POST', '/api/v1/namespaces/lr2/limitranges', { metadata: { name: 'storage' }, spec: { limits: [{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '2Gi' } }] } });
    expect(lr.status).toBe(201);
    const big = await call('POST', '/api/v1/namespaces/lr2/persistentvolumeclaims', claim('big', '5Gi'));
    expect(big.status).toBe(403);
    expect(big.body.message).toBe('persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi');
    const small = await call('POST', '/api/v1/namespaces/lr2/persistentvolumeclaims', claim('small', '100Mi'));
    expect(small.body.message).toBe('persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 100Mi');
    const ok = await call('POST', '/api/v1/namespaces/lr2/persistentvolumeclaims', claim('ok', '1500Mi'));
    expect(ok.status).toBe(201);
    const bound = await call('PUT', '/api/v1/namespaces/lr2/persistentvolumeclaims/ok/status', { ...ok.body, status: { phase: 'Bound', capacity: { storage: '1500Mi' } } });
    const grow = await call('PUT', '/api/v1/namespaces/lr2/persistentvolumeclaims/ok', { ...bound.body, spec: { ...bound.body.spec, resources: { requests: { storage: '3Gi' } } } });
    expect(grow.status).toBe(403);
    expect(grow.body.message).toBe('persistentvolumeclaims "ok" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 3Gi');
  });
});

describe('ResourceQuota', () => {
  async function quota(ns: string, hard: Json, used: Json) {
    const q = await call('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { metadata: { name: 'q' }, spec: { hard } });
    expect(q.status).toBe(201);
    const cur = q.body;
    cur.status = { hard, used };
    expect((await call('PUT', `/api/v1/namespaces/${ns}/resourcequotas/q/status`, cur)).status).toBe(200);
  }

  it('charges each create to status.used and refuses the one past hard', async () => {
    await quota('rq', { pods: '2' }, { pods: '0' });
    expect((await call('POST', '/api/v1/namespaces/rq/pods', pod('a'))).status).toBe(201);
    expect((await call('POST', '/api/v1/namespaces/rq/pods', pod('b'))).status).toBe(201);
    expect((await call('GET', '/api/v1/namespaces/rq/resourcequotas/q')).body.status.used).toEqual({ pods: '2' });
    const r = await call('POST', '/api/v1/namespaces/rq/pods', pod('c'));
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('Forbidden');
    expect(r.body.message).toBe('pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
  });

  it('wants every container to state the cpu and memory the quota tracks', async () => {
    await quota('rq2', { 'limits.cpu': '2', 'requests.memory': '1Gi' }, { 'limits.cpu': '0', 'requests.memory': '0' });
    const r = await call('POST', '/api/v1/namespaces/rq2/pods', pod('x'));
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('pods "x" is forbidden: failed quota: q: must specify limits.cpu for: c; requests.memory for: c');
    const ok = await call('POST', '/api/v1/namespaces/rq2/pods', pod('y', { limits: { cpu: '500m' }, requests: { memory: '512Mi' } }));
    expect(ok.status).toBe(201);
    const r2 = await call('POST', '/api/v1/namespaces/rq2/pods', pod('z', { limits: { cpu: '2' }, requests: { memory: '512Mi' } }));
    expect(r2.body.message).toBe('pods "z" is forbidden: exceeded quota: q, requested: limits.cpu=2, used: limits.cpu=500m, limited: limits.cpu=2');
    expect((await call('GET', '/api/v1/namespaces/rq2/resourcequotas/q')).body.status.used).toEqual({ 'limits.cpu': '500m', 'requests.memory': '512Mi' });
  });

  it('charges updates by what they add: a service turned NodePort, a claim asking for more storage', async () => {
    await quota('rq3', { 'services.nodeports': '0', 'requests.storage': '5Gi', 'standard.storageclass.storage.k8s.io/requests.storage': '3Gi' }, { 'services.nodeports': '0', 'requests.storage': '0', 'standard.storageclass.storage.k8s.io/requests.storage': '0' });
    const svc = await call('POST', '/api/v1/namespaces/rq3/services', { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } });
    expect(svc.status).toBe(201);
    const np = await call('PUT', '/api/v1/namespaces/rq3/services/s', { ...svc.body, spec: { ...svc.body.spec, type: 'NodePort' } });
    expect(np.status).toBe(403);
    expect(np.body.message).toBe('services "s" is forbidden: exceeded quota: q, requested: services.nodeports=1, used: services.nodeports=0, limited: services.nodeports=0');

    await call('POST', '/apis/storage.k8s.io/v1/storageclasses', { metadata: { name: 'standard' }, provisioner: 'example.com/x', allowVolumeExpansion: true });
    const pvc = await call('POST', '/api/v1/namespaces/rq3/persistentvolumeclaims', { metadata: { name: 'data' }, spec: { storageClassName: 'standard', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } });
    expect(pvc.status).toBe(201);
    expect((await call('GET', '/api/v1/namespaces/rq3/resourcequotas/q')).body.status.used).toMatchObject({ 'requests.storage': '2Gi', 'standard.storageclass.storage.k8s.io/requests.storage': '2Gi' });
    const bound = await call('PUT', '/api/v1/namespaces/rq3/persistentvolumeclaims/data/status', { ...pvc.body, status: { phase: 'Bound', capacity: { storage: '2Gi' } } });
    expect(bound.status).toBe(200);
    const grow = await call('PUT', '/api/v1/namespaces/rq3/persistentvolumeclaims/data', { ...bound.body, spec: { ...bound.body.spec, resources: { requests: { storage: '4Gi' } } } });
    expect(grow.status).toBe(403);
    expect(grow.body.message).toBe(
      'persistentvolumeclaims "data" is forbidden: exceeded quota: q, requested: standard.storageclass.storage.k8s.io/requests.storage=2Gi, used: standard.storageclass.storage.k8s.io/requests.storage=2Gi, limited: standard.storageclass.storage.k8s.io/requests.storage=3Gi',
    );
    const small = await call('PUT', '/api/v1/namespaces/rq3/persistentvolumeclaims/data', { ...bound.body, spec: { ...bound.body.spec, resources: { requests: { storage: '3Gi' } } } });
    expect(small.status).toBe(200);
    expect((await call('GET', '/api/v1/namespaces/rq3/resourcequotas/q')).body.status.used).toMatchObject({ 'requests.storage': '3Gi', 'standard.storageclass.storage.k8s.io/requests.storage': '3Gi' });
  });
});
