// Filter: nodes with spec.unschedulable=true reject pods that do not tolerate the unschedulable taint.
import type { FilterPlugin } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { tolerationsTolerateTaint } from '../util/taints.ts';
import { Names } from './names.ts';

export const ErrReasonUnschedulable = 'node(s) were unschedulable';
export const TaintNodeUnschedulable = 'node.kubernetes.io/unschedulable';

export class NodeUnschedulable implements FilterPlugin {
  readonly name = Names.NodeUnschedulable;
  filter(_s: unknown, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    if (!nodeInfo.node?.spec?.unschedulable) return null;
    const tolerated = tolerationsTolerateTaint(pod.pod.spec.tolerations, { key: TaintNodeUnschedulable, effect: 'NoSchedule' });
    return tolerated ? null : Status.unresolvable(ErrReasonUnschedulable);
  }
}
