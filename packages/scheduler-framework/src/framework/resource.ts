// Requested/allocatable resources as the scheduler counts them, and a pod's effective request computed the
// way Kubernetes does (PodRequests): max(sum of app containers + restartable init containers, the largest
// init container step) plus pod overhead. The "non-zero" variant substitutes 100m cpu / 200Mi memory for
// containers that request none, so that scoring spreads best-effort pods.
import type { Container, Pod, ResourceList } from '@kemu/api';
import { intValue, milliValue } from '../util/quantity.ts';

export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

export const CPU = 'cpu';
export const MEMORY = 'memory';
export const EPHEMERAL_STORAGE = 'ephemeral-storage';
export const PODS = 'pods';

export class Resource {
  milliCPU = 0;
  memory = 0;
  ephemeralStorage = 0;
  allowedPodNumber = 0;
  /** Extended resources, hugepages and the like, by name. */
  scalar: Map<string, number> | undefined;

  static fromList(list: ResourceList | undefined): Resource {
    const r = new Resource();
    if (list) r.addList(list);
    return r;
  }

  addList(list: ResourceList): void {
    for (const name in list) {
      const q = list[name];
      if (q === undefined) continue;
      switch (name) {
        case CPU:
          this.milliCPU += milliValue(q);
          break;
        case MEMORY:
          this.memory += intValue(q);
          break;
        case EPHEMERAL_STORAGE:
          this.ephemeralStorage += intValue(q);
          break;
        case PODS:
          this.allowedPodNumber += intValue(q);
          break;
        default:
          if (isScalarResourceName(name)) this.addScalar(name, intValue(q));
      }
    }
  }

  addScalar(name: string, v: number): void {
    if (!this.scalar) this.scalar = new Map();
    this.scalar.set(name, (this.scalar.get(name) ?? 0) + v);
  }
  getScalar(name: string): number {
    return this.scalar?.get(name) ?? 0;
  }

  add(o: Resource, sign = 1): void {
    this.milliCPU += sign * o.milliCPU;
    this.memory += sign * o.memory;
    this.ephemeralStorage += sign * o.ephemeralStorage;
    this.allowedPodNumber += sign * o.allowedPodNumber;
    if (o.scalar) for (const [k, v] of o.scalar) this.addScalar(k, sign * v);
  }

  /** Element-wise max, in place. */
  setMax(o: Resource): void {
    this.milliCPU = Math.max(this.milliCPU, o.milliCPU);
    this.memory = Math.max(this.memory, o.memory);
    this.ephemeralStorage = Math.max(this.ephemeralStorage, o.ephemeralStorage);
    if (o.scalar)
      for (const [k, v] of o.scalar) {
        if (!this.scalar) this.scalar = new Map();
        this.scalar.set(k, Math.max(this.scalar.get(k) ?? 0, v));
      }
  }

  clone(): Resource {
    const r = new Resource();
    r.add(this);
    return r;
  }

  isZero(): boolean {
    if (this.milliCPU !== 0 || this.memory !== 0 || this.ephemeralStorage !== 0) return false;
    if (this.scalar) for (const v of this.scalar.values()) if (v !== 0) return false;
    return true;
  }

  /** The value for a resource name (cpu in millicores). */
  get(name: string): number {
    switch (name) {
      case CPU:
        return this.milliCPU;
      case MEMORY:
        return this.memory;
      case EPHEMERAL_STORAGE:
        return this.ephemeralStorage;
      case PODS:
        return this.allowedPodNumber;
      default:
        return this.getScalar(name);
    }
  }
}

/** Extended (domain-prefixed, not *kubernetes.io/), hugepages-*, attachable-volumes-* resources. */
export function isScalarResourceName(name: string): boolean {
  if (name.startsWith('hugepages-') || name.startsWith('attachable-volumes-')) return true;
  const slash = name.indexOf('/');
  if (slash < 0) return false;
  const domain = name.slice(0, slash);
  return !(domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io'));
}

function containerRequests(c: Container, nonZero: boolean): Resource {
  const req = c.resources?.requests;
  const r = Resource.fromList(req);
  if (nonZero) {
    if (req?.[CPU] === undefined) r.milliCPU = DEFAULT_MILLI_CPU_REQUEST;
    if (req?.[MEMORY] === undefined) r.memory = DEFAULT_MEMORY_REQUEST;
  }
  return r;
}

/** The pod's effective request (PodRequests); with nonZero, best-effort containers count 100m/200Mi. */
export function computePodRequests(pod: Pod, nonZero = false): Resource {
  const total = new Resource();
  for (const c of pod.spec.containers ?? []) total.add(containerRequests(c, nonZero));
  const sidecars = new Resource();
  const initMax = new Resource();
  for (const ic of pod.spec.initContainers ?? []) {
    const r = containerRequests(ic, nonZero);
    if (ic.restartPolicy === 'Always') {
      // Restartable init containers (sidecars) keep running next to the app containers.
      total.add(r);
      sidecars.add(r);
      initMax.setMax(sidecars);
    } else {
      const step = r.clone();
      step.add(sidecars);
      initMax.setMax(step);
    }
  }
  total.setMax(initMax);
  if (pod.spec.overhead) total.addList(pod.spec.overhead);
  return total;
}
