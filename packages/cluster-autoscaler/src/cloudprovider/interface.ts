// The cloud provider as the autoscaler sees it (cloudprovider.CloudProvider / NodeGroup, reduced to what kemu
// uses). The target size lives with the cloud, not in the autoscaler: a new leader reads it back, so a scale-up
// its predecessor asked for is counted as upcoming nodes instead of being asked for twice.
import type { Node } from '@kemu/api';

export interface NodeGroup {
  readonly id: string;
  readonly minSize: number;
  readonly maxSize: number;
  /** The size the cloud is working towards (registered or not). */
  targetSize(): Promise<number>;
  /** Asks the cloud for delta more nodes; the cloud refuses a size past its own maximum. */
  increaseSize(delta: number): Promise<void>;
  /** Removes these nodes (by Node name) from the group; the target size drops by as many. */
  deleteNodes(names: readonly string[]): Promise<void>;
  /** A Node object shaped like the group's next node (capacity, allocatable, labels, taints). */
  templateNode(): Node;
}

export interface CloudProvider {
  readonly name: string;
  nodeGroups(): readonly NodeGroup[];
  /** The group a Node belongs to; undefined for nodes the autoscaler does not manage. */
  nodeGroupForNode(node: Node): NodeGroup | undefined;
  /** Re-reads the cloud's view (target sizes) once per scan. */
  refresh(): Promise<void>;
}
