// StorageObjectInUseProtection admission (plugin/pkg/admission/storage/storageobjectinuseprotection): every
// PersistentVolume and PersistentVolumeClaim is created with its protection finalizer, which the
// pv-protection and pvc-protection controllers remove once nothing uses the object.
import { STORAGE } from '@kemu/api';
import type { AdmissionPlugin } from './types.ts';

export const storageObjectInUseProtectionPlugin: AdmissionPlugin = {
  name: 'StorageObjectInUseProtection',
  admit(attrs) {
    if (attrs.operation !== 'CREATE' || attrs.subresource || attrs.resource.group !== '') return;
    const finalizer =
      attrs.resource.kind === 'PersistentVolume' ? STORAGE.pvProtectionFinalizer : attrs.resource.kind === 'PersistentVolumeClaim' ? STORAGE.pvcProtectionFinalizer : undefined;
    const o = attrs.object;
    if (!finalizer || !o) return;
    const finalizers = o.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) o.metadata.finalizers = [...finalizers, finalizer];
  },
};
