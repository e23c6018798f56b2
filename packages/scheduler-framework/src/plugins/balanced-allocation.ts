// Score: prefer nodes whose resource fractions (cpu, memory, … after placing the pod) are balanced:
// (1 - standard deviation of the fractions) × 100. Best-effort pods skip this plugin.
import type { CycleState } from '../framework/cycle-state.ts';
import type { PreScorePlugin, ScorePlugin } from '../framework/interface.ts';
import { MAX_NODE_SCORE } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { Names } from './names.ts';
import { allocatableAndRequested, type ResourceSpec } from './resource-allocation.ts';
import { defaultResourceSpecs } from './node-resources-fit.ts';

export interface BalancedAllocationArgs {
  resources: ResourceSpec[];
}

export class BalancedAllocation implements PreScorePlugin, ScorePlugin {
  readonly name = Names.NodeResourcesBalancedAllocation;
  private readonly resources: string[];
  private readonly fractions: number[];
  private readonly tmp = { alloc: 0, req: 0 };

  constructor(args: BalancedAllocationArgs = { resources: defaultResourceSpecs() }) {
    this.resources = args.resources.map((r) => r.name);
    this.fractions = new Array<number>(this.resources.length).fill(0);
  }

  preScore(_s: CycleState, pod: PodInfo): MaybeStatus {
    for (const r of this.resources) if (pod.requests.get(r) !== 0) return null;
    return Status.skip();
  }

  score(_s: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number {
    let n = 0;
    let sum = 0;
    for (const r of this.resources) {
      allocatableAndRequested(nodeInfo, pod, r, true, this.tmp);
      if (this.tmp.alloc === 0) continue;
      const f = Math.min(this.tmp.req / this.tmp.alloc, 1);
      this.fractions[n++] = f;
      sum += f;
    }
    let std = 0;
    if (n === 2) std = Math.abs((this.fractions[0] as number) - (this.fractions[1] as number)) / 2;
    else if (n > 2) {
      const mean = sum / n;
      let v = 0;
      for (let i = 0; i < n; i++) v += ((this.fractions[i] as number) - mean) ** 2;
      std = Math.sqrt(v / n);
    }
    return Math.trunc((1 - std) * MAX_NODE_SCORE);
  }
}
