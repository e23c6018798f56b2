// persistentvolumeclaim-protection-controller and persistentvolume-protection-controller
// (pkg/controller/volume/{pvcprotection,pvprotection}): the kubernetes.io/pvc-protection finalizer leaves a
// deleted claim once no running pod uses it; kubernetes.io/pv-protection leaves a deleted volume once it is
// no longer Bound.
import { R, STORAGE, type KubeObject, type PersistentVolume, type PersistentVolumeClaim, type Pod } from '@kemu/api';
import { unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../../controller.ts';
import { KeyedWorker } from '../base.ts';

/** Pods that still hold the claim: scheduled or not, but not terminated. */
export function podUsesClaim(pod: Pod, claimName: string): boolean {
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
  return (pod.spec.volumes ?? []).some((v) => (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName === claimName);
}

async function removeFinalizer<T extends KubeObject>(ctx: ControllerContext, r: typeof R.persistentvolumes, obj: T, finalizer: string, kind: string): Promise<void> {
  const next = { ...structuredClone(obj), apiVersion: 'v1', kind };
  next.metadata.finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  await ctx.client.update(r, obj.metadata.namespace, next);
}

export class PVCProtectionController implements Controller {
  readonly name = 'persistentvolumeclaim-protection-controller';
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly pods: SharedInformer<Pod>;
  private readonly worker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.claims = ctx.informers.informerFor<PersistentVolumeClaim>(R.persistentvolumeclaims);
    this.pods = ctx.informers.informerFor<Pod>(R.pods);
    this.worker = new KeyedWorker(ctx, { name: 'pvcprotection', workers: 1, sync: (k) => this.sync(k) }).waitFor(this.claims, this.pods);
    this.claims.addEventHandler({ onAdd: (c) => this.worker.enqueue(c), onUpdate: (_o, c) => this.worker.enqueue(c) });
    const onPod = (p: Pod) => {
      for (const v of p.spec?.volumes ?? []) {
        const name = (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName;
        if (name) this.worker.add(`${p.metadata.namespace ?? ''}/${name}`);
      }
    };
    this.pods.addEventHandler({ onUpdate: (_o, p) => onPod(p), onDelete: (p) => onPod(unwrapDeleted(p)) });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private async sync(key: string): Promise<void> {
    const claim = this.claims.store.get(key);
    if (!claim) return;
    const has = claim.metadata.finalizers?.includes(STORAGE.pvcProtectionFinalizer) ?? false;
    if (!has || !claim.metadata.deletionTimestamp) return;
    const ns = claim.metadata.namespace ?? '';
    if (this.pods.store.byIndex('namespace', ns).some((p) => podUsesClaim(p, claim.metadata.name ?? ''))) return;
    // The cache may lag behind a pod just created: ask the apiserver too, as Kubernetes does.
    const live = await this.ctx.client.list<Pod>(R.pods, ns);
    if (live.items.some((p) => podUsesClaim(p, claim.metadata.name ?? ''))) return;
    await removeFinalizer(this.ctx, R.persistentvolumeclaims, claim, STORAGE.pvcProtectionFinalizer, 'PersistentVolumeClaim');
  }
}

export class PVProtectionController implements Controller {
  readonly name = 'persistentvolume-protection-controller';
  private readonly volumes: SharedInformer<PersistentVolume>;
  private readonly worker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.volumes = ctx.informers.informerFor<PersistentVolume>(R.persistentvolumes);
    this.worker = new KeyedWorker(ctx, { name: 'pvprotection', workers: 1, sync: (k) => this.sync(k) }).waitFor(this.volumes);
    this.volumes.addEventHandler({ onAdd: (v) => this.worker.enqueue(v), onUpdate: (_o, v) => this.worker.enqueue(v) });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private async sync(key: string): Promise<void> {
    const pv = this.volumes.store.get(key);
    if (!pv || !pv.metadata.deletionTimestamp || !pv.metadata.finalizers?.includes(STORAGE.pvProtectionFinalizer)) return;
    if (pv.status?.phase === 'Bound') return;
    await removeFinalizer(this.ctx, R.persistentvolumes, pv, STORAGE.pvProtectionFinalizer, 'PersistentVolume');
  }
}

export const pvcProtectionDescriptor: ControllerDescriptor = {
  name: 'persistentvolumeclaim-protection-controller',
  aliases: ['pvc-protection'],
  serviceAccountName: 'pvc-protection-controller',
  enabledByDefault: true,
  create: (ctx) => new PVCProtectionController(ctx),
};

export const pvProtectionDescriptor: ControllerDescriptor = {
  name: 'persistentvolume-protection-controller',
  aliases: ['pv-protection'],
  serviceAccountName: 'pv-protection-controller',
  enabledByDefault: true,
  create: (ctx) => new PVProtectionController(ctx),
};
