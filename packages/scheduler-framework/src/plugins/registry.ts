// The in-tree plugins by name. Args arrive defaulted and validated by the config package.
import { Registry } from '../framework/registry.ts';
import { BalancedAllocation, type BalancedAllocationArgs } from './balanced-allocation.ts';
import { DefaultBinder } from './default-binder.ts';
import { DefaultPreemption, type DefaultPreemptionArgs } from './default-preemption.ts';
import { ImageLocality } from './image-locality.ts';
import { InterPodAffinity, type InterPodAffinityArgs } from './inter-pod-affinity.ts';
import { Names } from './names.ts';
import { NodeAffinity } from './node-affinity.ts';
import { NodeName } from './node-name.ts';
import { NodePorts } from './node-ports.ts';
import { NodeResourcesFit, type NodeResourcesFitArgs } from './node-resources-fit.ts';
import { NodeUnschedulable } from './node-unschedulable.ts';
import { PodTopologySpread, type PodTopologySpreadArgs } from './pod-topology-spread.ts';
import { PrioritySort } from './priority-sort.ts';
import { SchedulingGates } from './scheduling-gates.ts';
import { TaintToleration } from './taint-toleration.ts';
import { NodeVolumeLimits } from './node-volume-limits.ts';
import { VolumeBinding } from './volume-binding.ts';
import { VolumeRestrictions } from './volume-restrictions.ts';
import { VolumeZone } from './volume-zone.ts';

const orUndefined = <T>(a: unknown): T | undefined => (a === undefined || a === null ? undefined : (a as T));

export function inTreeRegistry(): Registry {
  return new Registry({
    [Names.PrioritySort]: () => new PrioritySort(),
    [Names.SchedulingGates]: () => new SchedulingGates(),
    [Names.NodeUnschedulable]: () => new NodeUnschedulable(),
    [Names.NodeName]: () => new NodeName(),
    [Names.TaintToleration]: () => new TaintToleration(),
    [Names.NodeAffinity]: () => new NodeAffinity(),
    [Names.NodePorts]: () => new NodePorts(),
    [Names.NodeResourcesFit]: (args) => new NodeResourcesFit(orUndefined<NodeResourcesFitArgs>(args)),
    [Names.NodeResourcesBalancedAllocation]: (args) => new BalancedAllocation(orUndefined<BalancedAllocationArgs>(args)),
    [Names.ImageLocality]: (_a, h) => new ImageLocality(h),
    [Names.PodTopologySpread]: (args, h) => new PodTopologySpread(h, orUndefined<PodTopologySpreadArgs>(args)),
    [Names.InterPodAffinity]: (args, h) => new InterPodAffinity(h, orUndefined<InterPodAffinityArgs>(args)),
    [Names.DefaultPreemption]: (args, h) => new DefaultPreemption(h, orUndefined<DefaultPreemptionArgs>(args)),
    [Names.DefaultBinder]: (_a, h) => new DefaultBinder(h),
    [Names.VolumeRestrictions]: (_a, h) => new VolumeRestrictions(h),
    [Names.NodeVolumeLimits]: (_a, h) => new NodeVolumeLimits(h),
    [Names.VolumeBinding]: (_a, h) => new VolumeBinding(h),
    [Names.VolumeZone]: (_a, h) => new VolumeZone(h),
  });
}
