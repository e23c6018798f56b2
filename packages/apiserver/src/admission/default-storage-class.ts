// DefaultStorageClass admission (plugin/pkg/admission/storage/storageclass/setdefault): a claim created
// without spec.storageClassName (nil, not "") and without the beta class annotation gets the default
// StorageClass — the newest one when several are marked default, by name on a tie.
import { STORAGE } from '@kemu/api';
import type { StorageClass } from '@kemu/api';
import type { AdmissionPlugin } from './types.ts';
import { isObj } from './types.ts';

const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

function isDefault(sc: StorageClass): boolean {
  const a = sc.metadata.annotations ?? {};
  return a[STORAGE.isDefaultClassAnnotation] === 'true' || a[STORAGE.betaIsDefaultClassAnnotation] === 'true';
}

/** storageutil.GetDefaultClass: the newest class marked default; undefined when none is. */
export function defaultStorageClass(classes: readonly StorageClass[]): StorageClass | undefined {
  const defaults = classes.filter(isDefault);
  defaults.sort((a, b) => {
    const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
    const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
    if (ta !== tb) return tb - ta;
    return (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
  });
  return defaults[0];
}

export const defaultStorageClassPlugin: AdmissionPlugin = {
  name: 'DefaultStorageClass',
  async admit(attrs, ctx) {
    if (attrs.operation !== 'CREATE' || attrs.subresource || attrs.resource.group !== '' || attrs.resource.kind !== 'PersistentVolumeClaim') return;
    const pvc = attrs.object;
    if (!pvc) return;
    if (!isObj(pvc.spec)) pvc.spec = {};
    const spec = pvc.spec as Record<string, unknown>;
    if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
    if (pvc.metadata.annotations?.[BETA_CLASS_ANNOTATION] !== undefined) return;
    const def = defaultStorageClass((await ctx.listStorageClasses?.()) ?? []);
    if (def?.metadata.name) spec.storageClassName = def.metadata.name;
  },
};
