// In-tree plugin names, as Kubernetes spells them (pkg/scheduler/framework/plugins/names).
export const Names = {
  PrioritySort: 'PrioritySort',
  SchedulingGates: 'SchedulingGates',
  NodeUnschedulable: 'NodeUnschedulable',
  NodeName: 'NodeName',
  TaintToleration: 'TaintToleration',
  NodeAffinity: 'NodeAffinity',
  NodePorts: 'NodePorts',
  NodeResourcesFit: 'NodeResourcesFit',
  VolumeBinding: 'VolumeBinding',
  VolumeZone: 'VolumeZone',
  NodeResourcesBalancedAllocation: 'NodeResourcesBalancedAllocation',
  ImageLocality: 'ImageLocality',
  PodTopologySpread: 'PodTopologySpread',
  InterPodAffinity: 'InterPodAffinity',
  DefaultPreemption: 'DefaultPreemption',
  DefaultBinder: 'DefaultBinder',
} as const;
