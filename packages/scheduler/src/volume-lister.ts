// The VolumeLister the volume plugins read: claims, volumes, classes and CSINodes from the scheduler's informers, and the
// two writes it makes before binding (the selected-node annotation, a volume's claimRef).
import { R, STORAGE, type CSINode, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '@kemu/api';
import type { Indexer, RestClient } from '@kemu/client';
import type { VolumeLister } from '@kemu/scheduler-framework';

export function informerVolumeLister(
  client: RestClient,
  claims: Indexer<PersistentVolumeClaim>,
  volumes: Indexer<PersistentVolume>,
  classes: Indexer<StorageClass>,
  csiNodes?: Indexer<CSINode>,
): VolumeLister {
  return {
    claim: (namespace, name) => claims.get(`${namespace}/${name}`),
    volume: (name) => volumes.get(name),
    volumes: () => volumes.list(),
    storageClass: (name) => classes.get(name),
    csiNode: (name) => csiNodes?.get(name),
    async selectNode(claim, nodeName) {
      const patch = { metadata: { annotations: { [STORAGE.selectedNodeAnnotation]: nodeName } } };
      await client.patch(R.persistentvolumeclaims, claim.metadata.namespace, claim.metadata.name ?? '', patch, 'merge');
    },
    async preBind(volume, claim) {
      const claimRef = { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid };
      const patch = { metadata: { resourceVersion: volume.metadata.resourceVersion }, spec: { claimRef } };
      await client.patch(R.persistentvolumes, undefined, volume.metadata.name ?? '', patch, 'merge');
    },
  };
}
