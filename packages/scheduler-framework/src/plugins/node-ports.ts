// Filter: the pod's host ports must be free on the node (0.0.0.0 conflicts with every address).
import type { FilterPlugin, PreFilterPlugin } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { Names } from './names.ts';

export const ErrReasonNodePorts = "node(s) didn't have free ports for the requested pod ports";

export class NodePorts implements PreFilterPlugin, FilterPlugin {
  readonly name = Names.NodePorts;
  preFilter(_s: unknown, pod: PodInfo): MaybeStatus {
    return pod.hostPorts.length === 0 ? Status.skip() : null;
  }
  filter(_s: unknown, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    for (const hp of pod.hostPorts) if (nodeInfo.portConflict(hp)) return Status.unschedulable(ErrReasonNodePorts);
    return null;
  }
}
