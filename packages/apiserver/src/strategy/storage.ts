// The storage kinds (pkg/registry/core/persistentvolume{,claim}, pkg/registry/storage/*): status starts
// Pending and only /status changes it; a PV's lastPhaseTransitionTime follows its phase; StorageClass,
// CSIDriver and CSINode have no status; a VolumeAttachment's status is the attacher's.
import { formatTime, R } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultCSIDriver, defaultPersistentVolume, defaultPersistentVolumeClaim, defaultStorageClass } from '../defaults/storage.ts';
import {
  validateCSIDriver,
  validateCSIDriverUpdate,
  validateCSINode,
  validateCSINodeUpdate,
  validatePersistentVolume,
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimStatusUpdate,
  validatePersistentVolumeClaimUpdate,
  validatePersistentVolumeStatusUpdate,
  validatePersistentVolumeUpdate,
  validateStorageClass,
  validateStorageClassUpdate,
  validateVolumeAttachment,
  validateVolumeAttachmentUpdate,
} from '../validation/storage.ts';
import { validateObjectMetaUpdate } from '../validation/meta.ts';

type Obj = Record<string, unknown>;
const statusOf = (o: KubeObject): Obj | undefined => ((o as Obj).status ?? undefined) as Obj | undefined;

export const persistentVolumeStrategy = buildStrategy(R.persistentvolumes, {
  defaults: (pv) => defaultPersistentVolume(pv as Obj),
  validate: validatePersistentVolume,
  validateUpdate: validatePersistentVolumeUpdate,
  validateStatusUpdate: validatePersistentVolumeStatusUpdate,
  status: { initial: () => ({ phase: 'Pending', lastPhaseTransitionTime: formatTime(Date.now()) }) },
  prepareForStatusUpdate(pv, old) {
    // PersistentVolumeLastPhaseTransitionTime: stamped whenever the phase changes.
    const s = statusOf(pv);
    if (s && s.phase !== statusOf(old)?.phase) s.lastPhaseTransitionTime = formatTime(Date.now());
  },
});

export const persistentVolumeClaimStrategy = buildStrategy(R.persistentvolumeclaims, {
  defaults: (pvc) => defaultPersistentVolumeClaim(pvc as Obj),
  validate: validatePersistentVolumeClaim,
  validateUpdate: validatePersistentVolumeClaimUpdate,
  validateStatusUpdate: validatePersistentVolumeClaimStatusUpdate,
  status: { initial: () => ({ phase: 'Pending' }) },
});

export const storageClassStrategy = buildStrategy(R.storageclasses, {
  defaults: (sc) => defaultStorageClass(sc as Obj),
  validate: validateStorageClass,
  validateUpdate: validateStorageClassUpdate,
});

export const csiDriverStrategy = buildStrategy(R.csidrivers, {
  defaults: (d) => defaultCSIDriver(d as Obj),
  validate: validateCSIDriver,
  validateUpdate: validateCSIDriverUpdate,
});

export const csiNodeStrategy = buildStrategy(R.csinodes, { validate: validateCSINode, validateUpdate: validateCSINodeUpdate });

export const volumeAttachmentStrategy = buildStrategy(R.volumeattachments, {
  validate: validateVolumeAttachment,
  validateUpdate: validateVolumeAttachmentUpdate,
  validateStatusUpdate: (va, old) => validateObjectMetaUpdate(va.metadata, old.metadata, { namespaced: false }),
  status: {},
});
