// Pod admission as the kubelet does it: a pod whose requests do not fit the node's allocatable (after the
// pods already admitted) is rejected with phase Failed, reason OutOf<resource>, and the kubelet's message.
import { cpuMillis, intValue, tryParseQuantity, type Pod, type ResourceList } from '@kemu/api';

/** Requests in base units: cpu in millicores, memory and ephemeral-storage in bytes, pods as a count. */
export interface PodRequests {
  cpu: number;
  memory: number;
  'ephemeral-storage': number;
}

export type Resource = keyof PodRequests | 'pods';

const RESOURCES: readonly (keyof PodRequests)[] = ['cpu', 'memory', 'ephemeral-storage'];

function amount(list: ResourceList | undefined, r: keyof PodRequests): number {
  const q = list?.[r];
  if (q === undefined || tryParseQuantity(q) === undefined) return 0;
  return r === 'cpu' ? cpuMillis(q) : intValue(q);
}

/** The pod's effective request: max(sum of containers, largest init container) + overhead (as the scheduler). */
export function podRequests(pod: Pod): PodRequests {
  const out: PodRequests = { cpu: 0, memory: 0, 'ephemeral-storage': 0 };
  for (const r of RESOURCES) {
    let sum = 0;
    let sidecars = 0;
    let initMax = 0;
    for (const c of pod.spec.containers) sum += amount(c.resources?.requests, r);
    for (const c of pod.spec.initContainers ?? []) {
      const v = amount(c.resources?.requests, r);
      if (c.restartPolicy === 'Always') {
        sidecars += v;
        initMax = Math.max(initMax, sidecars);
      } else {
        initMax = Math.max(initMax, sidecars + v);
      }
    }
    out[r] = Math.max(sum + sidecars, initMax) + amount(pod.spec.overhead, r);
  }
  return out;
}

export interface Allocatable {
  cpu: number;
  memory: number;
  'ephemeral-storage': number;
  pods: number;
}

export function parseAllocatable(list: ResourceList): Allocatable {
  return {
    cpu: amount(list, 'cpu'),
    memory: amount(list, 'memory'),
    'ephemeral-storage': amount(list, 'ephemeral-storage'),
    pods: list.pods === undefined ? 110 : intValue(list.pods),
  };
}

export interface AdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}

/** Checks a pod against allocatable given the requests of the pods already admitted on the node. */
export function admitPod(pod: Pod, allocatable: Allocatable, admitted: readonly PodRequests[]): AdmitResult {
  if (admitted.length + 1 > allocatable.pods) return reject('pods', 1, admitted.length, allocatable.pods);
  const req = podRequests(pod);
  for (const r of RESOURCES) {
    if (req[r] === 0) continue;
    const used = admitted.reduce((s, p) => s + p[r], 0);
    if (used + req[r] > allocatable[r]) return reject(r, req[r], used, allocatable[r]);
  }
  return { admit: true };
}

function reject(r: Resource, requested: number, used: number, capacity: number): AdmitResult {
  return {
    admit: false,
    reason: `OutOf${r}`,
    message: `Node didn't have enough resource: ${r}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
  };
}
