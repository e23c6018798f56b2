// Which pods a scale-down must move, and which pods keep a node (simulator/drain rules): DaemonSet and mirror pods
// stay (they go with the node), a pod annotated safe-to-evict=false, a pod no controller would re-create, a
// kube-system pod, or a pod with local storage blocks the node, as with the autoscaler's default flags.
import type { Pod } from '@kemu/api';

export const SAFE_TO_EVICT = 'cluster-autoscaler.kubernetes.io/safe-to-evict';
const MIRROR = 'kubernetes.io/config.mirror';

export type BlockingReason = 'NotSafeToEvictAnnotation' | 'NotReplicated' | 'UnmovableKubeSystemPod' | 'LocalStorageRequested';

export interface DrainOptions {
  skipNodesWithSystemPods: boolean;
  skipNodesWithLocalStorage: boolean;
}

export type DrainVerdict = { kind: 'move' } | { kind: 'stay' } | { kind: 'block'; reason: BlockingReason };

const controller = (p: Pod) => p.metadata.ownerReferences?.find((o) => o.controller);

export function drainVerdict(pod: Pod, o: DrainOptions): DrainVerdict {
  if (pod.metadata.annotations?.[MIRROR] !== undefined) return { kind: 'stay' };
  if (controller(pod)?.kind === 'DaemonSet') return { kind: 'stay' };
  const safe = pod.metadata.annotations?.[SAFE_TO_EVICT];
  if (safe === 'true') return { kind: 'move' };
  if (safe === 'false') return { kind: 'block', reason: 'NotSafeToEvictAnnotation' };
  if (!controller(pod)) return { kind: 'block', reason: 'NotReplicated' };
  if (o.skipNodesWithSystemPods && pod.metadata.namespace === 'kube-system') return { kind: 'block', reason: 'UnmovableKubeSystemPod' };
  if (o.skipNodesWithLocalStorage && (pod.spec.volumes ?? []).some((v) => v.emptyDir !== undefined || v.hostPath !== undefined))
    return { kind: 'block', reason: 'LocalStorageRequested' };
  return { kind: 'move' };
}
