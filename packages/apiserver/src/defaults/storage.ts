// Storage defaulting (pkg/apis/core/v1/defaults.go for PVs and claims, pkg/apis/storage/v1/defaults.go):
// volumeMode Filesystem, a hand-made PV's reclaim policy Retain, hostPath type "", a StorageClass's
// reclaimPolicy Delete and volumeBindingMode Immediate, a CSIDriver's booleans and modes.
import { ensureObj, isObj, setDefault } from './util.ts';
import type { Obj } from './util.ts';

export function defaultPersistentVolume(pv: Obj): void {
  const spec = ensureObj(pv, 'spec');
  setDefault(spec, 'volumeMode', 'Filesystem');
  setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  if (isObj(spec.hostPath) && (spec.hostPath.type === undefined || spec.hostPath.type === null)) spec.hostPath.type = '';
  if (isObj(pv.status)) setDefault(pv.status, 'phase', 'Pending');
}

export function defaultPersistentVolumeClaim(pvc: Obj): void {
  const spec = ensureObj(pvc, 'spec');
  setDefault(spec, 'volumeMode', 'Filesystem');
  if (isObj(pvc.status)) setDefault(pvc.status, 'phase', 'Pending');
}

export function defaultStorageClass(sc: Obj): void {
  setDefault(sc, 'reclaimPolicy', 'Delete');
  setDefault(sc, 'volumeBindingMode', 'Immediate');
}

export function defaultCSIDriver(d: Obj): void {
  const spec = ensureObj(d, 'spec');
  setDefault(spec, 'attachRequired', true);
  setDefault(spec, 'podInfoOnMount', false);
  setDefault(spec, 'storageCapacity', false);
  setDefault(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
  setDefault(spec, 'requiresRepublish', false);
  setDefault(spec, 'seLinuxMount', false);
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ['Persistent'];
}
