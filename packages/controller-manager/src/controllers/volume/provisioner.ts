// An emulated rancher.io/local-path provisioner (kind's default StorageClass `standard`): for each claim the
// binder hands to it (volume.kubernetes.io/storage-provisioner), a hostPath volume pre-bound to the claim,
// named pvc-<claim uid>, with node affinity to the node the scheduler chose (WaitForFirstConsumer); and the
// deletion of its volumes once released under the Delete policy. Nothing is written to any disk.
import { R, STORAGE, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '@kemu/api';
import { isAlreadyExists, type SharedInformer } from '@kemu/client';
import type { ControllerContext } from '../../controller.ts';
import { KeyedWorker } from '../base.ts';
import { claimClass, selectedNode } from './matching.ts';

export const LOCAL_PATH_PROVISIONER = 'rancher.io/local-path';
/** local-path-provisioner's default directory on each node. */
export const LOCAL_PATH_ROOT = '/var/local-path-provisioner';

export function provisionedVolume(claim: PersistentVolumeClaim, cls: StorageClass, node: string | undefined): PersistentVolume {
  const name = `pvc-${claim.metadata.uid ?? ''}`;
  const ns = claim.metadata.namespace ?? '';
  const pv: PersistentVolume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { [STORAGE.provisionedByAnnotation]: cls.provisioner, ...(node ? { 'local.path.provisioner/selected-node': node } : {}) } },
    spec: {
      capacity: { storage: claim.spec.resources?.requests?.storage ?? '0' },
      accessModes: claim.spec.accessModes ?? ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
      storageClassName: cls.metadata.name ?? '',
      volumeMode: claim.spec.volumeMode ?? 'Filesystem',
      claimRef: { kind: 'PersistentVolumeClaim', namespace: ns, name: claim.metadata.name, uid: claim.metadata.uid, apiVersion: 'v1', resourceVersion: claim.metadata.resourceVersion },
      hostPath: { path: `${LOCAL_PATH_ROOT}/${name}_${ns}_${claim.metadata.name ?? ''}`, type: 'DirectoryOrCreate' },
    },
  };
  if (node) pv.spec.nodeAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } };
  return pv;
}

export class LocalPathProvisioner {
  readonly worker: KeyedWorker;
  running = false;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly claims: SharedInformer<PersistentVolumeClaim>,
    private readonly classes: SharedInformer<StorageClass>,
  ) {
    this.worker = new KeyedWorker(ctx, { name: 'local-path-provisioner', workers: 1, sync: (k) => this.sync(k) }).waitFor(claims, classes);
    claims.addEventHandler({ onAdd: (c) => this.worker.enqueue(c), onUpdate: (_o, c) => this.worker.enqueue(c) });
  }

  run(): Promise<void> {
    this.running = true;
    return this.worker.run().finally(() => {
      this.running = false;
    });
  }

  private async sync(key: string): Promise<void> {
    const claim = this.claims.store.get(key);
    if (!claim || claim.metadata.deletionTimestamp || claim.spec.volumeName) return;
    if (claim.metadata.annotations?.[STORAGE.storageProvisionerAnnotation] !== LOCAL_PATH_PROVISIONER) return;
    const cls = this.classes.store.get(claimClass(claim));
    if (!cls || cls.provisioner !== LOCAL_PATH_PROVISIONER) return;
    const node = selectedNode(claim);
    // WaitForFirstConsumer: nothing until the scheduler has picked the pod's node.
    if (cls.volumeBindingMode === 'WaitForFirstConsumer' && !node) return;
    const pv = provisionedVolume(claim, cls, node);
    const ref = { ...claim, apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
    this.ctx.recorder.event(ref, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}"`);
    try {
      await this.ctx.client.create(R.persistentvolumes, undefined, pv);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      return;
    }
    this.ctx.recorder.event(ref, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pv.metadata.name ?? ''}`);
  }

  /** The Delete reclaim of a volume this provisioner made. */
  async deleteVolume(pv: PersistentVolume): Promise<void> {
    await this.ctx.client.delete(R.persistentvolumes, undefined, pv.metadata.name ?? '', { preconditions: { uid: pv.metadata.uid } });
  }
}
