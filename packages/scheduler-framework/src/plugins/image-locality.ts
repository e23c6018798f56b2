// Score: prefer nodes that already have the pod's images, weighted by image size and by how widely the
// image is spread (so one node with a big image does not attract every pod).
import type { CycleState } from '../framework/cycle-state.ts';
import type { Handle, ScorePlugin } from '../framework/interface.ts';
import { MAX_NODE_SCORE } from '../framework/interface.ts';
import { normalizedImageName, type NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Names } from './names.ts';

const MB = 1024 * 1024;
export const MIN_THRESHOLD = 23 * MB;
export const MAX_CONTAINER_THRESHOLD = 1000 * MB;

export class ImageLocality implements ScorePlugin {
  readonly name = Names.ImageLocality;
  constructor(private readonly handle: Pick<Handle, 'snapshot'>) {}

  score(_s: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number {
    if (nodeInfo.imageSizes.size === 0) return 0;
    const snap = this.handle.snapshot();
    const total = snap.nodeInfos().length;
    const containers = [...(pod.pod.spec.initContainers ?? []), ...(pod.pod.spec.containers ?? [])];
    let sum = 0;
    for (const c of containers) {
      if (!c.image) continue;
      const img = normalizedImageName(c.image);
      const size = nodeInfo.imageSizes.get(img);
      if (size === undefined) continue;
      sum += Math.trunc(size * (snap.imageNumNodes(img) / Math.max(total, 1)));
    }
    const maxThreshold = MAX_CONTAINER_THRESHOLD * containers.length;
    if (sum < MIN_THRESHOLD) sum = MIN_THRESHOLD;
    else if (sum > maxThreshold) sum = maxThreshold;
    return Math.trunc((MAX_NODE_SCORE * (sum - MIN_THRESHOLD)) / (maxThreshold - MIN_THRESHOLD));
  }
}
