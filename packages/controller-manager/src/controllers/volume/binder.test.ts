// The persistentvolume-binder with its emulated local-path provisioner and the protection controllers over
// the fake API: WaitForFirstConsumer waits for the scheduler's selected node, then a volume is provisioned
// there and both sides bound; a deleted claim releases its volume (Delete: removed; Retain: kept Released);
// a static volume binds by class, size and access modes; the protection finalizers leave when unused.
import { afterEach, describe, expect, it } from 'vitest';
import { R, type PersistentVolume, type PersistentVolumeClaim, type Pod, type StorageClass } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../../testing/context.ts';
import { PersistentVolumeBinderController } from './binder.ts';
import { PVCProtectionController, PVProtectionController } from './protection.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

const standard: StorageClass = {
  metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
  provisioner: 'rancher.io/local-path',
  reclaimPolicy: 'Delete',
  volumeBindingMode: 'WaitForFirstConsumer',
};
const claim = (name: string, spec: Partial<PersistentVolumeClaim['spec']> = {}): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'default' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem', ...spec },
  status: { phase: 'Pending' },
});
const volume = (name: string, size: string, spec: Partial<PersistentVolume['spec']> = {}): PersistentVolume => ({
  metadata: { name },
  spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', hostPath: { path: `/data/${name}` }, ...spec },
  status: { phase: 'Pending' },
});

async function start(): Promise<FakeEnv> {
  const env = fakeContext();
  envs.push(env);
  const controllers = [new PersistentVolumeBinderController(env.ctx), new PVCProtectionController(env.ctx), new PVProtectionController(env.ctx)];
  env.informers.start(env.abort.signal);
  for (const c of controllers) void c.run();
  await settle();
  return env;
}

describe('persistentvolume-binder', () => {
  it('waits for the first consumer, provisions on the selected node, binds, and deletes the volume with the claim', async () => {
    const env = await start();
    const { api, recorder } = env;
    await api.create(R.storageclasses, undefined, standard);
    await api.create(R.persistentvolumeclaims, 'default', claim('www', { storageClassName: 'standard' }));
    await settle();
    expect(recorder.events).toContainEqual({ object: 'PersistentVolumeClaim/www', type: 'Normal', reason: 'WaitForFirstConsumer', message: 'waiting for first consumer to be created before binding' });
    expect(api.all(R.persistentvolumes)).toHaveLength(0);

    await api.patch(R.persistentvolumeclaims, 'default', 'www', { metadata: { annotations: { 'volume.kubernetes.io/selected-node': 'node-1' } } }, 'merge');
    await settle(200);
    const c = await api.get<PersistentVolumeClaim>(R.persistentvolumeclaims, 'default', 'www');
    const pvName = `pvc-${c.metadata.uid ?? ''}`;
    expect(c.spec.volumeName).toBe(pvName);
    expect(c.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });
    expect(c.metadata.annotations).toMatchObject({
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
      'volume.kubernetes.io/storage-provisioner': 'rancher.io/local-path',
    });
    const pv = await api.get<PersistentVolume>(R.persistentvolumes, undefined, pvName);
    expect(pv.status?.phase).toBe('Bound');
    expect(pv.spec).toMatchObject({ storageClassName: 'standard', persistentVolumeReclaimPolicy: 'Delete', claimRef: { name: 'www', namespace: 'default', uid: c.metadata.uid } });
    expect(pv.spec.nodeAffinity?.required?.nodeSelectorTerms[0]?.matchExpressions?.[0]).toEqual({ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] });
    expect(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by']).toBe('rancher.io/local-path');
    expect(recorder.events.map((e) => e.reason)).toEqual(expect.arrayContaining(['Provisioning', 'ProvisioningSucceeded']));

    await api.delete(R.persistentvolumeclaims, 'default', 'www');
    await settle(200);
    expect(api.all(R.persistentvolumes)).toHaveLength(0);
  });

  it('binds a static volume by class, size and modes, and keeps a Retain volume Released after the claim', async () => {
    const env = await start();
    const { api } = env;
    await api.create(R.persistentvolumes, undefined, volume('big', '10Gi'));
    await api.create(R.persistentvolumes, undefined, volume('small', '2Gi'));
    await api.create(R.persistentvolumes, undefined, volume('rwx', '1Gi', { accessModes: ['ReadWriteMany'] }));
    await api.create(R.persistentvolumeclaims, 'default', claim('data', { storageClassName: '' }));
    await settle(200);
    const c = await api.get<PersistentVolumeClaim>(R.persistentvolumeclaims, 'default', 'data');
    expect(c.spec.volumeName).toBe('small');
    expect(c.status?.phase).toBe('Bound');
    expect((await api.get<PersistentVolume>(R.persistentvolumes, undefined, 'big')).status?.phase).toBe('Available');
    const small = await api.get<PersistentVolume>(R.persistentvolumes, undefined, 'small');
    expect(small.status?.phase).toBe('Bound');
    expect(small.metadata.annotations?.['pv.kubernetes.io/bound-by-controller']).toBe('yes');

    await api.delete(R.persistentvolumeclaims, 'default', 'data');
    await settle(200);
    expect((await api.get<PersistentVolume>(R.persistentvolumes, undefined, 'small')).status?.phase).toBe('Released');
  });

  it('says why a claim without class finds nothing', async () => {
    const env = await start();
    await env.api.create(R.persistentvolumeclaims, 'default', claim('lonely', { storageClassName: '' }));
    await settle();
    expect(env.recorder.events).toContainEqual({
      object: 'PersistentVolumeClaim/lonely',
      type: 'Normal',
      reason: 'FailedBinding',
      message: 'no persistent volumes available for this claim and no storage class is set',
    });
  });
});

describe('pvc-protection and pv-protection', () => {
  it('keep a claim while a pod uses it; release an unbound volume', async () => {
    const env = await start();
    const { api } = env;
    await api.create(R.persistentvolumeclaims, 'default', { ...claim('held'), metadata: { name: 'held', namespace: 'default', finalizers: ['kubernetes.io/pvc-protection'] } });
    const pod: Pod = {
      metadata: { name: 'user', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'held' } }] },
      status: { phase: 'Running' },
    };
    await api.create(R.pods, 'default', pod);
    await settle();
    await api.delete(R.persistentvolumeclaims, 'default', 'held');
    await settle();
    expect((await api.get<PersistentVolumeClaim>(R.persistentvolumeclaims, 'default', 'held')).metadata.deletionTimestamp).toBeDefined();
    await api.delete(R.pods, 'default', 'user', { gracePeriodSeconds: 0 });
    await settle(100);
    expect(api.all(R.persistentvolumeclaims, 'default')).toHaveLength(0);

    // A volume the binder finds unclaimed is no longer Bound: its finalizer leaves and the delete completes.
    await api.create(R.persistentvolumes, undefined, { ...volume('pv', '1Gi'), metadata: { name: 'pv', finalizers: ['kubernetes.io/pv-protection'] } });
    await settle(100);
    await api.delete(R.persistentvolumes, undefined, 'pv');
    await settle(100);
    expect(api.all(R.persistentvolumes)).toHaveLength(0);
  });
});
