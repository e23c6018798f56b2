// The autoscaling/v1 Scale a /scale subresource answers with: the object's identity (name, namespace, uid,
// resourceVersion, creationTimestamp) and its replica counts and selector, for built-in kinds and custom resources.
import type { KubeObject } from '@kemu/api';

export function scaleObject(obj: KubeObject, specReplicas: number, statusReplicas: number, selector: string): KubeObject {
  const meta: KubeObject['metadata'] = { name: obj.metadata.name ?? '' };
  if (obj.metadata.namespace) meta.namespace = obj.metadata.namespace;
  if (obj.metadata.uid) meta.uid = obj.metadata.uid;
  if (obj.metadata.resourceVersion) meta.resourceVersion = obj.metadata.resourceVersion;
  if (obj.metadata.creationTimestamp) meta.creationTimestamp = obj.metadata.creationTimestamp;
  return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: meta, spec: { replicas: specReplicas }, status: { replicas: statusReplicas, selector } };
}
