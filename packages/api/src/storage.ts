// core/v1 PersistentVolume and PersistentVolumeClaim, storage.k8s.io/v1 StorageClass, CSIDriver, CSINode and
// VolumeAttachment (the fields kemu reads or writes; unknown fields pass through untouched), and the
// annotations, finalizers and well-known values the storage controllers share.
import type { KubeObject, LabelSelector } from './meta.ts';
import type { NodeSelector, ObjectReference, ResourceList } from './core.ts';

export type PersistentVolumeAccessMode = 'ReadWriteOnce' | 'ReadOnlyMany' | 'ReadWriteMany' | 'ReadWriteOncePod';
export type PersistentVolumeReclaimPolicy = 'Retain' | 'Delete' | 'Recycle';
export type PersistentVolumeMode = 'Filesystem' | 'Block';
export type PersistentVolumePhase = 'Pending' | 'Available' | 'Bound' | 'Released' | 'Failed';
export type PersistentVolumeClaimPhase = 'Pending' | 'Bound' | 'Lost';
export type VolumeBindingMode = 'Immediate' | 'WaitForFirstConsumer';

export interface PersistentVolumeSpec {
  capacity?: ResourceList;
  accessModes?: PersistentVolumeAccessMode[];
  claimRef?: ObjectReference;
  persistentVolumeReclaimPolicy?: PersistentVolumeReclaimPolicy;
  storageClassName?: string;
  mountOptions?: string[];
  volumeMode?: PersistentVolumeMode;
  nodeAffinity?: { required?: NodeSelector };
  volumeAttributesClassName?: string;
  hostPath?: { path: string; type?: string };
  local?: { path: string; fsType?: string };
  nfs?: { server: string; path: string; readOnly?: boolean };
  csi?: { driver: string; volumeHandle: string; readOnly?: boolean; fsType?: string; volumeAttributes?: Record<string, string> };
  [source: string]: unknown;
}

export interface PersistentVolumeStatus {
  phase?: PersistentVolumePhase;
  message?: string;
  reason?: string;
  lastPhaseTransitionTime?: string;
}

export interface PersistentVolume extends KubeObject {
  spec: PersistentVolumeSpec;
  status?: PersistentVolumeStatus;
}

export interface PersistentVolumeClaimSpec {
  accessModes?: PersistentVolumeAccessMode[];
  resources?: { requests?: ResourceList; limits?: ResourceList };
  volumeName?: string;
  selector?: LabelSelector;
  storageClassName?: string;
  volumeMode?: PersistentVolumeMode;
  dataSource?: { apiGroup?: string; kind: string; name: string };
  dataSourceRef?: { apiGroup?: string; kind: string; name: string; namespace?: string };
  volumeAttributesClassName?: string;
}

export interface PersistentVolumeClaimCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

export interface PersistentVolumeClaimStatus {
  phase?: PersistentVolumeClaimPhase;
  accessModes?: PersistentVolumeAccessMode[];
  capacity?: ResourceList;
  conditions?: PersistentVolumeClaimCondition[];
  allocatedResources?: ResourceList;
  allocatedResourceStatuses?: Record<string, string>;
  currentVolumeAttributesClassName?: string;
}

export interface PersistentVolumeClaim extends KubeObject {
  spec: PersistentVolumeClaimSpec;
  status?: PersistentVolumeClaimStatus;
}

export interface TopologySelectorTerm {
  matchLabelExpressions?: { key: string; values: string[] }[];
}

export interface StorageClass extends KubeObject {
  provisioner: string;
  parameters?: Record<string, string>;
  reclaimPolicy?: PersistentVolumeReclaimPolicy;
  mountOptions?: string[];
  allowVolumeExpansion?: boolean;
  volumeBindingMode?: VolumeBindingMode;
  allowedTopologies?: TopologySelectorTerm[];
}

export interface CSIDriver extends KubeObject {
  spec: {
    attachRequired?: boolean;
    podInfoOnMount?: boolean;
    volumeLifecycleModes?: ('Persistent' | 'Ephemeral')[];
    storageCapacity?: boolean;
    fsGroupPolicy?: 'ReadWriteOnceWithFSType' | 'File' | 'None';
    tokenRequests?: { audience: string; expirationSeconds?: number }[];
    requiresRepublish?: boolean;
    seLinuxMount?: boolean;
  };
}

export interface CSINode extends KubeObject {
  spec: { drivers: { name: string; nodeID: string; topologyKeys?: string[] | null; allocatable?: { count?: number } }[] | null };
}

export interface VolumeAttachment extends KubeObject {
  spec: { attacher: string; source: { persistentVolumeName?: string; inlineVolumeSpec?: PersistentVolumeSpec }; nodeName: string };
  status?: {
    attached: boolean;
    attachmentMetadata?: Record<string, string>;
    attachError?: { time?: string; message?: string };
    detachError?: { time?: string; message?: string };
  };
}

/** Annotations, finalizers and values Kubernetes' volume controllers, scheduler and admission share. */
export const STORAGE = {
  /** storageclass.kubernetes.io/is-default-class: "true" marks the class claims without one get. */
  isDefaultClassAnnotation: 'storageclass.kubernetes.io/is-default-class',
  /** The beta spelling Kubernetes still honours. */
  betaIsDefaultClassAnnotation: 'storageclass.beta.kubernetes.io/is-default-class',
  bindCompletedAnnotation: 'pv.kubernetes.io/bind-completed',
  boundByControllerAnnotation: 'pv.kubernetes.io/bound-by-controller',
  provisionedByAnnotation: 'pv.kubernetes.io/provisioned-by',
  storageProvisionerAnnotation: 'volume.kubernetes.io/storage-provisioner',
  betaStorageProvisionerAnnotation: 'volume.beta.kubernetes.io/storage-provisioner',
  selectedNodeAnnotation: 'volume.kubernetes.io/selected-node',
  pvcProtectionFinalizer: 'kubernetes.io/pvc-protection',
  pvProtectionFinalizer: 'kubernetes.io/pv-protection',
} as const;
