// Cluster events that can make an unschedulable pod schedulable, and the plugins each one can help
// (a coarse form of Kubernetes' EventsToRegister / queueing hints).
import { Names } from '@kemu/scheduler-framework';

export const ClusterEvent = {
  NodeAdd: 'NodeAdd',
  NodeUpdate: 'NodeUpdate',
  AssignedPodAdd: 'AssignedPodAdd',
  AssignedPodUpdate: 'AssignedPodUpdate',
  AssignedPodDelete: 'AssignedPodDelete',
  UnschedulableTimeout: 'UnschedulableTimeout',
  ForceActivate: 'ForceActivate',
  PvcAdd: 'PvcAdd',
  PvcUpdate: 'PvcUpdate',
  PvAdd: 'PvAdd',
  PvUpdate: 'PvUpdate',
  StorageClassAdd: 'StorageClassAdd',
  CSINodeAdd: 'CSINodeAdd',
  CSINodeUpdate: 'CSINodeUpdate',
} as const;
export type ClusterEvent = (typeof ClusterEvent)[keyof typeof ClusterEvent];

const nodeEventPlugins = new Set<string>([
  Names.NodeUnschedulable,
  Names.NodeName,
  Names.TaintToleration,
  Names.NodeAffinity,
  Names.NodePorts,
  Names.NodeResourcesFit,
  Names.PodTopologySpread,
  Names.InterPodAffinity,
]);

const INTERESTED: Record<ClusterEvent, ReadonlySet<string> | 'all'> = {
  NodeAdd: 'all',
  NodeUpdate: nodeEventPlugins,
  AssignedPodAdd: new Set([Names.PodTopologySpread, Names.InterPodAffinity]),
  AssignedPodUpdate: new Set([Names.PodTopologySpread, Names.InterPodAffinity, Names.NodeResourcesFit]),
  AssignedPodDelete: new Set([
    Names.NodeResourcesFit,
    Names.NodePorts,
    Names.VolumeRestrictions,
    Names.NodeVolumeLimits,
    Names.PodTopologySpread,
    Names.InterPodAffinity,
    Names.DefaultPreemption,
  ]),
  UnschedulableTimeout: 'all',
  ForceActivate: 'all',
  PvcAdd: new Set([Names.VolumeRestrictions, Names.NodeVolumeLimits, Names.VolumeBinding]),
  PvcUpdate: new Set([Names.VolumeRestrictions, Names.VolumeBinding]),
  PvAdd: new Set([Names.NodeVolumeLimits, Names.VolumeBinding]),
  PvUpdate: new Set([Names.VolumeBinding]),
  StorageClassAdd: new Set([Names.VolumeBinding]),
  CSINodeAdd: new Set([Names.NodeVolumeLimits]),
  CSINodeUpdate: new Set([Names.NodeVolumeLimits]),
};

/** Could this event help a pod rejected by these plugins? Unknown rejections (empty set) always move. */
export function eventMayHelp(event: ClusterEvent, rejectedBy: ReadonlySet<string>): boolean {
  const interested = INTERESTED[event];
  if (interested === 'all' || rejectedBy.size === 0) return true;
  for (const p of rejectedBy) if (interested.has(p)) return true;
  return false;
}
