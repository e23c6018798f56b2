// PreEnqueue: pods with spec.schedulingGates wait outside the active queue until the gates are removed.
import type { PreEnqueuePlugin } from '../framework/runtime.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { Names } from './names.ts';

export class SchedulingGates implements PreEnqueuePlugin {
  readonly name = Names.SchedulingGates;
  preEnqueue(pod: PodInfo): MaybeStatus {
    const gates = (pod.pod.spec as { schedulingGates?: { name?: string }[] }).schedulingGates ?? [];
    if (gates.length === 0) return null;
    return Status.unresolvable(`waiting for scheduling gates: [${gates.map((g) => g.name ?? '').join(' ')}]`);
  }
}
