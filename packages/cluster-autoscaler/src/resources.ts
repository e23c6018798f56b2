// Requested and allocatable cpu (millicores) and memory (bytes) — what utilization and waste are measured in.
import type { Node, Pod } from '@kemu/api';
import { tryParseQuantity } from '@kemu/api';

export interface CpuMemory {
  cpu: number;
  memory: number;
}

const milli = (q: unknown): number => Math.round((tryParseQuantity(q) ?? 0) * 1000);
const bytes = (q: unknown): number => Math.ceil(tryParseQuantity(q) ?? 0);

export const podRequests = {
  /** Containers summed, the largest init container if larger, plus overhead (the scheduler's effective request). */
  of(pod: Pod): CpuMemory {
    const sum = { cpu: 0, memory: 0 };
    for (const c of pod.spec.containers ?? []) {
      sum.cpu += milli(c.resources?.requests?.cpu);
      sum.memory += bytes(c.resources?.requests?.memory);
    }
    for (const c of pod.spec.initContainers ?? []) {
      sum.cpu = Math.max(sum.cpu, milli(c.resources?.requests?.cpu));
      sum.memory = Math.max(sum.memory, bytes(c.resources?.requests?.memory));
    }
    sum.cpu += milli(pod.spec.overhead?.cpu);
    sum.memory += bytes(pod.spec.overhead?.memory);
    return sum;
  },
  allocatable(node: Node): CpuMemory {
    const a = node.status?.allocatable ?? node.status?.capacity ?? {};
    return { cpu: milli(a.cpu), memory: bytes(a.memory) };
  },
};
