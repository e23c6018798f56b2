// The lab's default StorageClass, as kind ships it: `standard`, marked default, provisioned by
// rancher.io/local-path (emulated by the controller-manager's persistentvolume-binder), Delete reclaim and
// WaitForFirstConsumer binding.
import { STORAGE, type StorageClass } from '@kemu/api';

export function standardStorageClass(): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'standard', annotations: { [STORAGE.isDefaultClassAnnotation]: 'true' } },
    provisioner: 'rancher.io/local-path',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  };
}
