// The admission plugin contract: a small function over the request's attributes that mutates the object
// (mutating plugins) or throws a StatusError to reject it. Lookups a plugin needs come through the context.
import type { KubeObject, PriorityClass, ResourceInfo } from '@kemu/api';

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  resource: ResourceInfo;
  subresource?: string;
  namespace?: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
}

export interface AdmissionContext {
  /** The PriorityClass of that name, or undefined when none exists. */
  getPriorityClass?(name: string): Promise<PriorityClass | undefined>;
  /** All PriorityClasses (to find the global default). */
  listPriorityClasses?(): Promise<PriorityClass[]>;
  /** --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds (300 when unset). */
  defaultNotReadyTolerationSeconds?: number;
  defaultUnreachableTolerationSeconds?: number;
}

export interface AdmissionPlugin {
  name: string;
  mutating: boolean;
  admit(attrs: AdmissionAttributes, ctx: AdmissionContext): void | Promise<void>;
}

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A pod CREATE on the main resource: what the pod plugins act on. */
export function podCreate(attrs: AdmissionAttributes): (KubeObject & { spec: Obj }) | undefined {
  if (attrs.operation !== 'CREATE' || attrs.subresource || attrs.resource.group !== '' || attrs.resource.kind !== 'Pod') return undefined;
  const o = attrs.object;
  if (!o) return undefined;
  if (!isObj(o.spec)) o.spec = {};
  return o as KubeObject & { spec: Obj };
}
