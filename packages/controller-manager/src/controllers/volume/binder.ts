// persistentvolume-binder-controller (pkg/controller/volume/persistentvolume/pv_controller.go): binds claims
// to volumes both ways (claimRef + phase Bound on the volume, volumeName + bind-completed on the claim),
// waits for a first consumer under WaitForFirstConsumer, hands claims of a class to its provisioner, marks
// volumes whose claim is gone Released and reclaims them (Retain: kept; Delete: deleted by their provisioner).
// The emulated rancher.io/local-path provisioner runs beside it (provisioner.ts) with the binder's client.
import { R, STORAGE, type KubeObject, type Node, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '@kemu/api';
import { isConflict, isNotFound, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../../controller.ts';
import { KeyedWorker } from '../base.ts';
import { claimClass, claimRefMatches, findBestMatch, isBindCompleted, selectedNode } from './matching.ts';
import { LocalPathProvisioner, LOCAL_PATH_PROVISIONER } from './provisioner.ts';

/** --pvclaimbinder-sync-period's default: every claim and volume is synced again this often. */
export const SYNC_PERIOD_MS = 15_000;

export const withKind = <T extends KubeObject>(o: T, kind: 'PersistentVolume' | 'PersistentVolumeClaim'): T => ({ ...o, apiVersion: 'v1', kind });

export class PersistentVolumeBinderController implements Controller {
  readonly name = 'persistentvolume-binder-controller';
  readonly volumes: SharedInformer<PersistentVolume>;
  readonly claims: SharedInformer<PersistentVolumeClaim>;
  readonly classes: SharedInformer<StorageClass>;
  readonly nodes: SharedInformer<Node>;
  private readonly worker: KeyedWorker;
  private readonly provisioner: LocalPathProvisioner;

  constructor(private readonly ctx: ControllerContext) {
    this.volumes = ctx.informers.informerFor<PersistentVolume>(R.persistentvolumes);
    this.claims = ctx.informers.informerFor<PersistentVolumeClaim>(R.persistentvolumeclaims);
    this.classes = ctx.informers.informerFor<StorageClass>(R.storageclasses);
    this.nodes = ctx.informers.informerFor<Node>(R.nodes);
    this.worker = new KeyedWorker(ctx, { name: 'persistentvolume-binder', workers: 1, sync: (k) => this.sync(k) }).waitFor(this.volumes, this.claims, this.classes);
    const claimKey = (c: PersistentVolumeClaim) => `claim/${c.metadata.namespace ?? ''}/${c.metadata.name ?? ''}`;
    const volumeKey = (v: PersistentVolume) => `volume/${v.metadata.name ?? ''}`;
    this.claims.addEventHandler(
      {
        onAdd: (c) => this.worker.add(claimKey(c)),
        onUpdate: (_o, c) => this.worker.add(claimKey(c)),
        // A deleted claim releases its volume.
        onDelete: (c) => {
          const claim = 'obj' in c ? (c.obj as PersistentVolumeClaim) : c;
          const v = claim.spec?.volumeName;
          if (v) this.worker.add(`volume/${v}`);
          for (const pv of this.volumes.store.list()) if (pv.spec.claimRef?.uid && pv.spec.claimRef.uid === claim.metadata.uid) this.worker.add(volumeKey(pv));
        },
      },
      SYNC_PERIOD_MS,
    );
    this.volumes.addEventHandler(
      {
        onAdd: (v) => this.worker.add(volumeKey(v)),
        onUpdate: (_o, v) => this.worker.add(volumeKey(v)),
        onDelete: (v) => {
          const pv = 'obj' in v ? (v.obj as PersistentVolume) : v;
          const ref = pv.spec?.claimRef;
          if (ref?.name) this.worker.add(`claim/${ref.namespace ?? ''}/${ref.name}`);
        },
      },
      SYNC_PERIOD_MS,
    );
    this.provisioner = new LocalPathProvisioner(ctx, this.claims, this.classes);
  }

  run(): Promise<void> {
    return Promise.all([this.worker.run(), this.provisioner.run()]).then(() => undefined);
  }

  private async sync(key: string): Promise<void> {
    const [kind, ...rest] = key.split('/');
    if (kind === 'claim') {
      const c = this.claims.store.get(rest.join('/'));
      if (c) await this.syncClaim(structuredClone(c));
    } else {
      const v = this.volumes.store.get(rest.join('/'));
      if (v) await this.syncVolume(structuredClone(v));
    }
  }

  private event(claim: PersistentVolumeClaim, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.ctx.recorder.event(withKind(claim, 'PersistentVolumeClaim'), type, reason, message);
  }

  // ---- claims

  async syncClaim(claim: PersistentVolumeClaim): Promise<void> {
    if (!isBindCompleted(claim)) return this.syncUnboundClaim(claim);
    return this.syncBoundClaim(claim);
  }

  private async syncUnboundClaim(claim: PersistentVolumeClaim): Promise<void> {
    const volumeName = claim.spec.volumeName ?? '';
    if (volumeName === '') {
      const cls = this.classes.store.get(claimClass(claim));
      const delayBinding = cls?.volumeBindingMode === 'WaitForFirstConsumer' && !selectedNode(claim);
      const node = selectedNode(claim);
      const nodeLabels = node ? (this.nodes.store.get(node)?.metadata.labels ?? { 'kubernetes.io/hostname': node }) : undefined;
      const volume = findBestMatch(this.volumes.store.list(), claim, { delayBinding, ...(nodeLabels ? { nodeLabels } : {}) });
      if (volume) return this.bind(structuredClone(volume), claim);
      if (delayBinding) this.event(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
      else if (claimClass(claim) !== '') await this.provisionClaim(claim, cls);
      else this.event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      return this.updateClaimStatus(claim, 'Pending');
    }
    const volume = this.volumes.store.get(volumeName);
    if (!volume) return this.updateClaimStatus(claim, 'Pending');
    if (!volume.spec.claimRef || claimRefMatches(volume, claim)) return this.bind(structuredClone(volume), claim);
    // The claim asks for a volume bound to someone else.
    if (claim.metadata.annotations?.[STORAGE.boundByControllerAnnotation] !== 'yes')
      this.event(claim, 'Warning', 'FailedBinding', 'volume "' + volumeName + '" already bound to a different claim.');
    return this.updateClaimStatus(claim, 'Pending');
  }

  private async syncBoundClaim(claim: PersistentVolumeClaim): Promise<void> {
    const volumeName = claim.spec.volumeName ?? '';
    if (volumeName === '') {
      this.event(claim, 'Warning', 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
      return this.updateClaimStatus(claim, 'Lost');
    }
    const volume = this.volumes.store.get(volumeName);
    if (!volume) {
      this.event(claim, 'Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
      return this.updateClaimStatus(claim, 'Lost');
    }
    if (!volume.spec.claimRef || claimRefMatches(volume, claim)) return this.bind(structuredClone(volume), claim);
    this.event(claim, 'Warning', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
    return this.updateClaimStatus(claim, 'Lost');
  }

  /** provisionClaim: name the class's provisioner on the claim and wait for it (or an administrator). */
  private async provisionClaim(claim: PersistentVolumeClaim, cls: StorageClass | undefined): Promise<void> {
    if (!cls) {
      this.event(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${claimClass(claim)}" not found`);
      return;
    }
    const ann = claim.metadata.annotations ?? {};
    if (ann[STORAGE.storageProvisionerAnnotation] !== cls.provisioner) {
      claim.metadata.annotations = { ...ann, [STORAGE.storageProvisionerAnnotation]: cls.provisioner, [STORAGE.betaStorageProvisionerAnnotation]: cls.provisioner };
      Object.assign(claim, await this.ctx.client.update(R.persistentvolumeclaims, claim.metadata.namespace, withKind(claim, 'PersistentVolumeClaim')));
    }
    if (cls.provisioner !== LOCAL_PATH_PROVISIONER || !this.provisioner.running)
      this.event(
        claim,
        'Normal',
        'ExternalProvisioning',
        `Waiting for a volume to be created either by the external provisioner '${cls.provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
      );
  }

  /** Both halves of a bind, volume first (as Kubernetes: a crash in between leaves a pre-bound volume). */
  private async bind(volume: PersistentVolume, claim: PersistentVolumeClaim): Promise<void> {
    const ref = volume.spec.claimRef;
    if (!ref || ref.uid !== claim.metadata.uid) {
      volume.spec.claimRef = {
        kind: 'PersistentVolumeClaim',
        namespace: claim.metadata.namespace,
        name: claim.metadata.name,
        uid: claim.metadata.uid,
        apiVersion: 'v1',
        resourceVersion: claim.metadata.resourceVersion,
      };
      if (!ref) volume.metadata.annotations = { ...(volume.metadata.annotations ?? {}), [STORAGE.boundByControllerAnnotation]: 'yes' };
      volume = await this.ctx.client.update(R.persistentvolumes, undefined, withKind(volume, 'PersistentVolume'));
    }
    await this.updateVolumePhase(volume, 'Bound');
    const ann = claim.metadata.annotations ?? {};
    if (claim.spec.volumeName !== volume.metadata.name || ann[STORAGE.bindCompletedAnnotation] !== 'yes') {
      const next: Record<string, string> = { ...ann, [STORAGE.bindCompletedAnnotation]: 'yes' };
      if (!claim.spec.volumeName) next[STORAGE.boundByControllerAnnotation] = 'yes';
      claim.metadata.annotations = next;
      claim.spec.volumeName = volume.metadata.name ?? '';
      Object.assign(claim, await this.ctx.client.update(R.persistentvolumeclaims, claim.metadata.namespace, withKind(claim, 'PersistentVolumeClaim')));
    }
    await this.updateClaimStatus(claim, 'Bound', volume);
  }

  private async updateClaimStatus(claim: PersistentVolumeClaim, phase: 'Pending' | 'Bound' | 'Lost', volume?: PersistentVolume): Promise<void> {
    const status = { ...(claim.status ?? {}), phase };
    if (volume) {
      status.accessModes = volume.spec.accessModes ?? [];
      status.capacity = { ...(volume.spec.capacity ?? {}) };
    }
    if (JSON.stringify(status) === JSON.stringify(claim.status ?? {})) return;
    await this.ctx.client.updateStatus(R.persistentvolumeclaims, claim.metadata.namespace, withKind({ ...claim, status }, 'PersistentVolumeClaim'));
  }

  private async updateVolumePhase(volume: PersistentVolume, phase: 'Available' | 'Bound' | 'Released' | 'Failed', message?: string): Promise<PersistentVolume> {
    if (volume.status?.phase === phase && (message === undefined || volume.status.message === message)) return volume;
    const status = { ...(volume.status ?? {}), phase, ...(message !== undefined ? { message } : {}) };
    return this.ctx.client.updateStatus(R.persistentvolumes, undefined, withKind({ ...volume, status }, 'PersistentVolume'));
  }

  // ---- volumes

  async syncVolume(volume: PersistentVolume): Promise<void> {
    const ref = volume.spec.claimRef;
    if (!ref) {
      await this.updateVolumePhase(volume, 'Available');
      return;
    }
    if (!ref.uid) {
      // Pre-bound by an administrator: the claim's sync binds it.
      await this.updateVolumePhase(volume, 'Available');
      return;
    }
    const claim = this.claims.store.get(`${ref.namespace ?? ''}/${ref.name ?? ''}`);
    if (claim && claim.metadata.uid === ref.uid) {
      if (!claim.spec.volumeName) {
        // Provisioned or pre-bound for this claim and not bound yet: the claim's sync finishes it.
        this.worker.add(`claim/${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`);
        return;
      }
      if (claim.spec.volumeName === volume.metadata.name) {
        await this.updateVolumePhase(volume, 'Bound');
        return;
      }
      // The claim went to another volume: a volume bound by this controller is freed.
      if (volume.metadata.annotations?.[STORAGE.boundByControllerAnnotation] === 'yes') {
        delete volume.spec.claimRef;
        const anns = { ...(volume.metadata.annotations ?? {}) };
        delete anns[STORAGE.boundByControllerAnnotation];
        volume.metadata.annotations = anns;
        const next = await this.ctx.client.update(R.persistentvolumes, undefined, withKind(volume, 'PersistentVolume'));
        await this.updateVolumePhase(next, 'Available');
      }
      return;
    }
    // The claim is gone, or a new claim took its name: the live claim decides (the cache may lag).
    try {
      const live = await this.ctx.client.get<PersistentVolumeClaim>(R.persistentvolumeclaims, ref.namespace, ref.name ?? '');
      if (live.metadata.uid === ref.uid) return;
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    if (volume.status?.phase !== 'Released' && volume.status?.phase !== 'Failed') volume = await this.updateVolumePhase(volume, 'Released');
    await this.reclaim(volume);
  }

  private async reclaim(volume: PersistentVolume): Promise<void> {
    const policy = volume.spec.persistentVolumeReclaimPolicy ?? 'Retain';
    if (policy === 'Retain' || volume.status?.phase === 'Failed' || volume.metadata.deletionTimestamp) return;
    if (policy === 'Delete' && volume.metadata.annotations?.[STORAGE.provisionedByAnnotation] === LOCAL_PATH_PROVISIONER) {
      try {
        await this.provisioner.deleteVolume(volume);
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      }
      return;
    }
    const why =
      policy === 'Delete'
        ? `error getting deleter volume plugin for volume "${volume.metadata.name ?? ''}": no deletable volume plugin matched`
        : `No recycler plugin found for the volume!`;
    this.ctx.recorder.event(withKind(volume, 'PersistentVolume'), 'Warning', policy === 'Delete' ? 'VolumeFailedDelete' : 'VolumeFailedRecycle', why);
    await this.updateVolumePhase(volume, 'Failed', why);
  }
}

export const persistentVolumeBinderDescriptor: ControllerDescriptor = {
  name: 'persistentvolume-binder-controller',
  aliases: ['persistentvolume-binder'],
  serviceAccountName: 'persistent-volume-binder',
  enabledByDefault: true,
  create: (ctx) => new PersistentVolumeBinderController(ctx),
};
