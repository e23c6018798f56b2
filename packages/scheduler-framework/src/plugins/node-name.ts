// Filter: a pod that names a node (spec.nodeName) fits only that node.
import type { FilterPlugin } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { Names } from './names.ts';

export const ErrReasonNodeName = "node(s) didn't match the requested node name";

export class NodeName implements FilterPlugin {
  readonly name = Names.NodeName;
  filter(_s: unknown, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const want = pod.pod.spec.nodeName;
    if (!want || want === nodeInfo.name) return null;
    return Status.unresolvable(ErrReasonNodeName);
  }
}
