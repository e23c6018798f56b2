// The per-resource behaviour the generic REST handlers call (Kubernetes' "rest strategy"): defaulting,
// validation, create/update preparation, selectable fields and Table printing. One strategy per resource,
// looked up by the resource table entry; pure functions, no I/O.
import type { KubeObject, ResourceInfo, StatusCause } from '@kemu/api';
import type { UserInfo } from '../authn/user.ts';

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string; // 'name' on the Name column
  description?: string;
  priority?: number; // 1 = shown only with -o wide
}

export type TableCell = string | number | boolean | null;

export interface TablePrinter {
  columns: TableColumn[];
  /** One row's cells, same length as columns; now = the clock for Age. */
  cells(obj: KubeObject, now: number): TableCell[];
}

export interface SubresourceUpdateStrategy {
  /** Keeps from `old` what the subresource may not change (system metadata is kept by the caller). */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  validateUpdate(obj: KubeObject, old: KubeObject): StatusCause[];
}

export interface ResourceStrategy {
  resource: ResourceInfo;
  /**
   * The kind tracks metadata.generation (set to 1 on create, +1 per spec change), as the Kubernetes strategies
   * that set `Generation = 1` in PrepareForCreate (deployments, replicasets, endpointslices). Other kinds
   * (pods, configmaps, services, nodes, …) have no generation in v1.31.
   */
  tracksGeneration?: boolean;
  /** A PUT of a missing object creates it (Kubernetes' AllowCreateOnUpdate: true for the RBAC kinds, leases…). */
  allowCreateOnUpdate?: boolean;
  /** Fill Kubernetes' defaults in place (e.g. pod restartPolicy, deployment strategy). */
  defaults?(obj: KubeObject): void;
  /**
   * Create-time preparation: e.g. clear status for kinds with a status subresource, generation = 1. `user` is
   * the requesting user when the request was authenticated (CertificateSigningRequests record it in spec).
   */
  prepareForCreate?(obj: KubeObject, user?: UserInfo): void;
  /** Update-time preparation on the main resource: keep old status, bump generation on spec change. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Update-time preparation on /status: keep old spec (and metadata except labels/annotations/finalizers/ownerRefs). */
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Causes with Kubernetes' field paths and messages; empty = valid. */
  validate?(obj: KubeObject): StatusCause[];
  validateUpdate?(obj: KubeObject, old: KubeObject): StatusCause[];
  validateStatusUpdate?(obj: KubeObject, old: KubeObject): StatusCause[];
  /** Validation of the object a /scale write produced (custom resources validate it as any update). */
  validateScaleUpdate?(obj: KubeObject, old: KubeObject): StatusCause[];
  /** Validation on pods/ephemeralcontainers, where only spec.ephemeralContainers changes. */
  validateEphemeralContainersUpdate?(obj: KubeObject, old: KubeObject): StatusCause[];
  /**
   * Subresources besides status that write the stored object through a strategy of their own (Kubernetes'
   * per-subresource storage strategies, e.g. certificatesigningrequests/approval), by subresource name.
   */
  subresourceUpdates?: Readonly<Record<string, SubresourceUpdateStrategy>>;
  /** Values for field selectors beyond metadata.name/metadata.namespace (e.g. spec.nodeName, status.phase). */
  selectableFields?(obj: KubeObject): Record<string, string>;
  printer?: TablePrinter;
}
