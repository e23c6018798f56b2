// Filter: the pod's requests (cpu, memory, ephemeral-storage, extended resources, pod count) must fit the
// node's allocatable minus what its pods request. Score: the configured scoring strategy.
import type { CycleState } from '../framework/cycle-state.ts';
import type { FilterPlugin, PreFilterPlugin, ScorePlugin } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { Names } from './names.ts';
import {
  allocatableAndRequested,
  leastAllocatedScorer,
  mostAllocatedScorer,
  requestedToCapacityRatioScorer,
  type ResourceSpec,
  type StrategyScorer,
  type UtilizationShapePoint,
} from './resource-allocation.ts';

export const ErrReasonTooManyPods = 'Too many pods';
export const insufficientReason = (resource: string): string => `Insufficient ${resource}`;

export type ScoringStrategyType = 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';

export interface NodeResourcesFitArgs {
  ignoredResources: string[];
  ignoredResourceGroups: string[];
  scoringStrategy: {
    type: ScoringStrategyType;
    resources: ResourceSpec[];
    requestedToCapacityRatio?: { shape: UtilizationShapePoint[] };
  };
}

export const defaultResourceSpecs = (): ResourceSpec[] => [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

export function defaultNodeResourcesFitArgs(): NodeResourcesFitArgs {
  return { ignoredResources: [], ignoredResourceGroups: [], scoringStrategy: { type: 'LeastAllocated', resources: defaultResourceSpecs() } };
}

/** The names of the resources the pod lacks on this node (fitsRequest). */
export function insufficientResources(pod: PodInfo, nodeInfo: NodeInfo, ignored?: (name: string) => boolean): string[] {
  if (fits(pod, nodeInfo, ignored)) return NONE;
  const out: string[] = [];
  const alloc = nodeInfo.allocatable;
  const used = nodeInfo.requested;
  if (nodeInfo.pods.length + 1 > alloc.allowedPodNumber) out.push(ErrReasonTooManyPods);
  const req = pod.requests;
  if (req.milliCPU === 0 && req.memory === 0 && req.ephemeralStorage === 0 && (req.scalar === undefined || req.scalar.size === 0))
    return out;
  if (req.milliCPU > 0 && req.milliCPU > alloc.milliCPU - used.milliCPU) out.push(insufficientReason('cpu'));
  if (req.memory > 0 && req.memory > alloc.memory - used.memory) out.push(insufficientReason('memory'));
  if (req.ephemeralStorage > 0 && req.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage)
    out.push(insufficientReason('ephemeral-storage'));
  if (req.scalar)
    for (const [name, v] of req.scalar) {
      if (v === 0 || ignored?.(name)) continue;
      if (v > alloc.getScalar(name) - used.getScalar(name)) out.push(insufficientReason(name));
    }
  return out;
}

const NONE: string[] = [];

/** The allocation-free check behind insufficientResources (the common, fitting case). */
function fits(pod: PodInfo, nodeInfo: NodeInfo, ignored?: (name: string) => boolean): boolean {
  const alloc = nodeInfo.allocatable;
  const used = nodeInfo.requested;
  const req = pod.requests;
  if (nodeInfo.pods.length + 1 > alloc.allowedPodNumber) return false;
  if (req.milliCPU > 0 && req.milliCPU > alloc.milliCPU - used.milliCPU) return false;
  if (req.memory > 0 && req.memory > alloc.memory - used.memory) return false;
  if (req.ephemeralStorage > 0 && req.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) return false;
  if (req.scalar)
    for (const [name, v] of req.scalar) if (v !== 0 && !ignored?.(name) && v > alloc.getScalar(name) - used.getScalar(name)) return false;
  return true;
}

export class NodeResourcesFit implements PreFilterPlugin, FilterPlugin, ScorePlugin {
  readonly name = Names.NodeResourcesFit;
  private readonly ignored: (name: string) => boolean;
  private readonly scorer: StrategyScorer;
  private readonly resources: string[];
  private readonly weights: number[];
  private readonly req: number[];
  private readonly alloc: number[];
  private readonly tmp = { alloc: 0, req: 0 };

  constructor(readonly args: NodeResourcesFitArgs = defaultNodeResourcesFitArgs()) {
    const ignored = new Set(args.ignoredResources);
    const groups = new Set(args.ignoredResourceGroups);
    this.ignored = (name) => ignored.has(name) || (name.includes('/') && groups.has(name.slice(0, name.indexOf('/'))));
    const s = args.scoringStrategy;
    this.resources = s.resources.map((r) => r.name);
    this.weights = s.resources.map((r) => r.weight);
    this.req = new Array<number>(this.resources.length).fill(0);
    this.alloc = new Array<number>(this.resources.length).fill(0);
    this.scorer =
      s.type === 'MostAllocated'
        ? mostAllocatedScorer
        : s.type === 'RequestedToCapacityRatio'
          ? requestedToCapacityRatioScorer(s.requestedToCapacityRatio?.shape ?? [])
          : leastAllocatedScorer;
  }

  preFilter(): MaybeStatus {
    // Requests are precomputed on PodInfo; nothing per cycle.
    return null;
  }

  filter(_s: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const r = insufficientResources(pod, nodeInfo, this.ignored);
    return r.length === 0 ? null : Status.unschedulable(...r);
  }

  score(_s: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number {
    for (let i = 0; i < this.resources.length; i++) {
      allocatableAndRequested(nodeInfo, pod, this.resources[i] as string, false, this.tmp);
      this.alloc[i] = this.tmp.alloc;
      this.req[i] = this.tmp.req;
    }
    return this.scorer(this.req, this.alloc, this.weights);
  }
}
