// The admission plugin contract: a plugin mutates the object (admit) and/or judges it (validate), throwing a
// StatusError to reject it. Lookups a plugin needs come through the context; warnings go to the client.
import type { KubeObject, PriorityClass, ResourceInfo, ResourceQuota, ServiceAccount, StorageClass } from '@kemu/api';

import type { UserInfo } from '../authn/user.ts';
import type { Attributes, AuthorizationResult } from '../authz/types.ts';
export type { UserInfo } from '../authn/user.ts';

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  resource: ResourceInfo;
  subresource?: string;
  namespace?: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  /** Who asks; undefined until requests are authenticated (plugins that need it then do nothing). */
  userInfo?: UserInfo;
  /** Sends a warning to the client (a `Warning: 299 - "text"` header). */
  warn?(text: string): void;
  /** Adds an audit annotation (key → value) to this request's audit event. */
  annotate?(key: string, value: string): void;
}

export interface AdmissionContext {
  /** The PriorityClass of that name, or undefined when none exists. */
  getPriorityClass?(name: string): Promise<PriorityClass | undefined>;
  /** All PriorityClasses (to find the global default). */
  listPriorityClasses?(): Promise<PriorityClass[]>;
  /** --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds (300 when unset). */
  defaultNotReadyTolerationSeconds?: number;
  defaultUnreachableTolerationSeconds?: number;
  /** The Namespace of that name (cache first, then the store), or undefined when none exists. */
  getNamespace?(name: string): Promise<KubeObject | undefined>;
  /** The pods of a namespace (for PodSecurity's warning when a namespace's enforce level changes). */
  listPods?(namespace: string): Promise<KubeObject[]>;
  /** The ServiceAccount namespace/name, or undefined when none exists. */
  getServiceAccount?(namespace: string, name: string): Promise<ServiceAccount | undefined>;
  /** All StorageClasses (DefaultStorageClass finds the default one). */
  listStorageClasses?(): Promise<StorageClass[]>;
  /** The Pod namespace/name (cache first), or undefined when none exists (NodeRestriction's TokenRequest check). */
  getPod?(namespace: string, name: string): Promise<KubeObject | undefined>;
  /**
   * The --authorization-mode chain, for plugins that check a permission of their own (Kubernetes'
   * WantsAuthorizer: CertificateApproval, CertificateSigning). Unset: no authorization runs, everything is allowed.
   */
  authorize?(a: Attributes): Promise<AuthorizationResult>;
  /**
   * The objects of a resource in a namespace (LimitRanger's LimitRanges, ResourceQuota's quotas): from the watch
   * cache once it is filled, or from the store when `fresh` (a quota's usage must be current to be charged).
   */
  listObjects?(r: ResourceInfo, namespace: string | undefined, fresh?: boolean): Promise<KubeObject[]>;
  /** Writes a ResourceQuota's status (its resourceVersion guards it: a Conflict when it moved on). */
  updateQuotaStatus?(q: ResourceQuota): Promise<void>;
}

/** One plugin, named as in Kubernetes; the chain runs every admit, then every validate. */
export interface AdmissionPlugin {
  name: string;
  /** Mutating admission: may change attrs.object. */
  admit?(attrs: AdmissionAttributes, ctx: AdmissionContext): void | Promise<void>;
  /** Validating admission: sees the final object, must not change it. */
  validate?(attrs: AdmissionAttributes, ctx: AdmissionContext): void | Promise<void>;
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

/** A pod write (create or update) on the main resource or on a subresource the plugin names. */
export function podWrite(attrs: AdmissionAttributes, subresources: readonly string[] = []): (KubeObject & { spec: Obj }) | undefined {
  if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return undefined;
  if (attrs.subresource && !subresources.includes(attrs.subresource)) return undefined;
  if (attrs.resource.group !== '' || attrs.resource.kind !== 'Pod') return undefined;
  const o = attrs.object;
  if (!o || !isObj(o.spec)) return undefined;
  return o as KubeObject & { spec: Obj };
}

/** "container" or "containers" etc., as Kubernetes' messages pluralize. */
export const pluralize = (one: string, many: string, n: number): string => (n === 1 ? one : many);
/** `"a", "b"` as Kubernetes' joinQuote prints names. */
export const joinQuote = (items: readonly string[]): string => items.map((i) => JSON.stringify(i)).join(', ');
