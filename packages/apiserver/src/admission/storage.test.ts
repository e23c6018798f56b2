// DefaultStorageClass and StorageObjectInUseProtection through the REST API (fastify.inject): a claim without
// a class gets the newest default one, an explicit "" stays, and both kinds are created with their
// protection finalizers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, StorageClass } from '@kemu/api';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { defaultStorageClass } from './default-storage-class.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv?.close());

type Body = KubeObject & { spec?: Record<string, unknown> };
async function post(url: string, body: unknown) {
  const r = await srv.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  return { status: r.statusCode, body: r.json() as Body };
}
const claim = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const sc = (name: string, isDefault: boolean, created = '2026-01-01T00:00:00Z'): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name, creationTimestamp: created, ...(isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}) },
  provisioner: 'rancher.io/local-path',
});

describe('DefaultStorageClass', () => {
  it('picks the newest default class, by name on a tie', () => {
    expect(defaultStorageClass([sc('a', false), sc('b', true)])?.metadata.name).toBe('b');
    expect(defaultStorageClass([sc('old', true, '2026-01-01T00:00:00Z'), sc('new', true, '2026-02-01T00:00:00Z')])?.metadata.name).toBe('new');
    expect(defaultStorageClass([sc('y', true), sc('x', true)])?.metadata.name).toBe('x');
    expect(defaultStorageClass([sc('a', false)])).toBeUndefined();
  });

  it('leaves a claim alone when no class is default, then sets the default on the next', async () => {
    const before = await post('/api/v1/namespaces/default/persistentvolumeclaims', claim('before'));
    expect(before.body.spec?.storageClassName).toBeUndefined();
    const c = await post('/apis/storage.k8s.io/v1/storageclasses', { ...sc('standard', true), metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } });
    expect(c.status).toBe(201);
    const after = await post('/api/v1/namespaces/default/persistentvolumeclaims', claim('after'));
    expect(after.body.spec?.storageClassName).toBe('standard');
    const none = await post('/api/v1/namespaces/default/persistentvolumeclaims', claim('none', { storageClassName: '' }));
    expect(none.body.spec?.storageClassName).toBe('');
  });
});

describe('StorageObjectInUseProtection', () => {
  it('adds kubernetes.io/pvc-protection and kubernetes.io/pv-protection on create', async () => {
    const c = await post('/api/v1/namespaces/default/persistentvolumeclaims', claim('protected'));
    expect(c.body.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    const v = await post('/api/v1/persistentvolumes', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-protected' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' } },
    });
    expect(v.body.metadata.finalizers).toEqual(['kubernetes.io/pv-protection']);
  });
});
