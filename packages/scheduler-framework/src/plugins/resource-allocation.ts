// The scoring strategies shared by NodeResourcesFit (LeastAllocated, MostAllocated,
// RequestedToCapacityRatio): per-resource scores weighted and averaged, in integer arithmetic as Kubernetes.
import { MAX_NODE_SCORE } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { CPU, MEMORY } from '../framework/resource.ts';

export interface ResourceSpec {
  name: string;
  weight: number;
}

export interface UtilizationShapePoint {
  utilization: number;
  score: number;
}

/**
 * Requested (node + pod) and allocatable for one resource; cpu/memory use the non-zero requests unless
 * useRequested. Returns allocatable 0 for a resource the scorer should leave out.
 */
export function allocatableAndRequested(
  nodeInfo: NodeInfo,
  pod: PodInfo,
  resource: string,
  useRequested: boolean,
  out: { alloc: number; req: number },
): void {
  const alloc = nodeInfo.allocatable.get(resource);
  if ((resource === CPU || resource === MEMORY) && !useRequested) {
    out.alloc = alloc;
    out.req = nodeInfo.nonZeroRequested.get(resource) + pod.nonZeroRequests.get(resource);
    return;
  }
  const podReq = pod.requests.get(resource);
  if (podReq === 0 && resource !== CPU && resource !== MEMORY) {
    // Extended resources the pod does not ask for do not count.
    out.alloc = 0;
    out.req = 0;
    return;
  }
  out.alloc = alloc;
  out.req = nodeInfo.requested.get(resource) + podReq;
}

export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

export function mostRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0) return 0;
  // Pods with no requests count minimum values, so requested may exceed capacity.
  const r = Math.min(requested, capacity);
  return Math.trunc((r * MAX_NODE_SCORE) / capacity);
}

/** A piecewise-linear function of utilization (0-100) defined by the shape (scores already ×10). */
export function brokenLinear(shape: readonly UtilizationShapePoint[]): (p: number) => number {
  return (p) => {
    for (let i = 0; i < shape.length; i++) {
      const cur = shape[i] as UtilizationShapePoint;
      if (p <= cur.utilization) {
        if (i === 0) return cur.score;
        const prev = shape[i - 1] as UtilizationShapePoint;
        return prev.score + Math.trunc(((cur.score - prev.score) * (p - prev.utilization)) / (cur.utilization - prev.utilization));
      }
    }
    return (shape[shape.length - 1] as UtilizationShapePoint).score;
  };
}

export type StrategyScorer = (requested: number[], allocatable: number[], weights: number[]) => number;

/**
 * The weighted mean of per-resource scores over the resources the node has (allocatable > 0). Kubernetes
 * truncates it (integer division) for Least/MostAllocated and rounds it for RequestedToCapacityRatio.
 */
function weightedScore(
  requested: number[],
  allocatable: number[],
  weights: number[],
  resourceScore: (requested: number, allocatable: number) => number,
  toInt: (x: number) => number,
): number {
  let score = 0;
  let wsum = 0;
  for (let i = 0; i < requested.length; i++) {
    const a = allocatable[i] as number;
    if (a === 0) continue;
    const w = weights[i] as number;
    score += resourceScore(requested[i] as number, a) * w;
    wsum += w;
  }
  return wsum === 0 ? 0 : toInt(score / wsum);
}

export function leastAllocatedScorer(requested: number[], allocatable: number[], weights: number[]): number {
  return weightedScore(requested, allocatable, weights, leastRequestedScore, Math.trunc);
}

export function mostAllocatedScorer(requested: number[], allocatable: number[], weights: number[]): number {
  return weightedScore(requested, allocatable, weights, mostRequestedScore, Math.trunc);
}

export function requestedToCapacityRatioScorer(shape: readonly UtilizationShapePoint[]): StrategyScorer {
  // Shape scores are given on a 0-10 scale; node scores are 0-100.
  const scaled = shape.map((p) => ({ utilization: p.utilization, score: p.score * (MAX_NODE_SCORE / 10) }));
  const f = brokenLinear(scaled);
  const resourceScore = (req: number, cap: number) => {
    if (cap === 0 || req > cap) return f(100);
    return f(Math.trunc((req * 100) / cap));
  };
  return (requested, allocatable, weights) => weightedScore(requested, allocatable, weights, resourceScore, Math.round);
}
