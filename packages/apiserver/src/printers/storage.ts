// kubectl get pv, pvc, storageclasses, csidrivers, csinodes, volumeattachments (pkg/printers/internalversion).
import { STORAGE } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, list, nameCol, obj, str } from './util.ts';

const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order. */
export function accessModesString(modes: unknown): string {
  const have = new Set(Array.isArray(modes) ? modes : []);
  const short: [string, string][] = [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']];
  return short.filter(([m]) => have.has(m)).map(([, s]) => s).join(',');
}

const quantity = (v: unknown): string => (typeof v === 'number' ? String(v) : str(v));
const phaseOf = (o: KubeObject): string => (o.metadata.deletionTimestamp ? 'Terminating' : str(obj(o.status).phase));
const attributesClass = (spec: Record<string, unknown>): string => str(spec.volumeAttributesClassName) || '<unset>';
const volumeMode = (spec: Record<string, unknown>): string => str(spec.volumeMode) || '<unset>';
const betaClass = (o: KubeObject): string | undefined => o.metadata.annotations?.[BETA_CLASS_ANNOTATION];

export const persistentVolumePrinter: TablePrinter = {
  columns: [
    nameCol, col('Capacity'), col('Access Modes'), col('Reclaim Policy'), col('Status'), col('Claim'), col('StorageClass'),
    col('VolumeAttributesClass'), col('Reason'), ageCol, col('VolumeMode', 'string', 1),
  ],
  cells(pv, now) {
    const spec = obj(pv.spec);
    const ref = spec.claimRef ? `${str(obj(spec.claimRef).namespace)}/${str(obj(spec.claimRef).name)}` : '';
    return [
      pv.metadata.name ?? '',
      quantity(obj(spec.capacity).storage),
      accessModesString(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      phaseOf(pv),
      ref,
      betaClass(pv) ?? str(spec.storageClassName),
      attributesClass(spec),
      str(obj(pv.status).reason),
      since(pv.metadata.creationTimestamp, now),
      volumeMode(spec),
    ];
  },
};

export const persistentVolumeClaimPrinter: TablePrinter = {
  columns: [
    nameCol, col('Status'), col('Volume'), col('Capacity'), col('Access Modes'), col('StorageClass'), col('VolumeAttributesClass'),
    ageCol, col('VolumeMode', 'string', 1),
  ],
  cells(pvc, now) {
    const spec = obj(pvc.spec);
    const status = obj(pvc.status);
    const bound = str(spec.volumeName) !== '';
    return [
      pvc.metadata.name ?? '',
      phaseOf(pvc),
      str(spec.volumeName),
      bound ? quantity(obj(status.capacity).storage) : '',
      bound ? accessModesString(status.accessModes) : '',
      betaClass(pvc) ?? str(spec.storageClassName),
      attributesClass(spec),
      since(pvc.metadata.creationTimestamp, now),
      volumeMode(spec),
    ];
  },
};

/** storageutil.IsDefaultAnnotation: either spelling of is-default-class set to "true". */
export function isDefaultStorageClass(sc: KubeObject): boolean {
  const a = sc.metadata.annotations ?? {};
  return a[STORAGE.isDefaultClassAnnotation] === 'true' || a[STORAGE.betaIsDefaultClassAnnotation] === 'true';
}

export const storageClassPrinter: TablePrinter = {
  columns: [nameCol, col('Provisioner'), col('ReclaimPolicy'), col('VolumeBindingMode'), col('AllowVolumeExpansion'), ageCol],
  cells: (sc, now) => [
    (sc.metadata.name ?? '') + (isDefaultStorageClass(sc) ? ' (default)' : ''),
    str(sc.provisioner),
    str(sc.reclaimPolicy) || 'Delete',
    str(sc.volumeBindingMode) || 'Immediate',
    sc.allowVolumeExpansion === true,
    since(sc.metadata.creationTimestamp, now),
  ],
};

export const csiDriverPrinter: TablePrinter = {
  columns: [
    nameCol, col('AttachRequired', 'boolean'), col('PodInfoOnMount', 'boolean'), col('StorageCapacity', 'boolean'), col('TokenRequests'),
    col('RequiresRepublish', 'boolean'), col('Modes'), ageCol,
  ],
  cells(d, now) {
    const spec = obj(d.spec);
    const modes = (Array.isArray(spec.volumeLifecycleModes) ? spec.volumeLifecycleModes.map(str) : []).join(',');
    return [
      d.metadata.name ?? '',
      spec.attachRequired !== false,
      spec.podInfoOnMount === true,
      spec.storageCapacity === true,
      Array.isArray(spec.tokenRequests) ? list(spec.tokenRequests).map((t) => str(t.audience)).join(',') : '<unset>',
      spec.requiresRepublish === true,
      modes || '<none>',
      since(d.metadata.creationTimestamp, now),
    ];
  },
};

export const csiNodePrinter: TablePrinter = {
  columns: [nameCol, col('Drivers', 'integer'), ageCol],
  cells: (n, now) => [n.metadata.name ?? '', list(obj(n.spec).drivers).length, since(n.metadata.creationTimestamp, now)],
};

export const volumeAttachmentPrinter: TablePrinter = {
  columns: [nameCol, col('Attacher'), col('PV'), col('Node'), col('Attached', 'boolean'), ageCol],
  cells(va, now) {
    const spec = obj(va.spec);
    return [
      va.metadata.name ?? '',
      str(spec.attacher),
      str(obj(spec.source).persistentVolumeName),
      str(spec.nodeName),
      obj(va.status).attached === true,
      since(va.metadata.creationTimestamp, now),
    ];
  },
};
