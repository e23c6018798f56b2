// Building blocks every resource strategy shares: status handling (reset on create, kept on update, the only
// thing /status may change), metadata.generation (1 on create, +1 on spec change) and the generic defaults.
import type { KubeObject, ResourceInfo, StatusCause } from '@kemu/api';
import type { UserInfo } from '../authn/user.ts';
import type { ResourceStrategy, SubresourceUpdateStrategy } from './types.ts';
import { jsonEqual } from '../validation/field.ts';
import { objectFields } from '../selectors/fields.ts';

export interface StrategyOptions {
  defaults?: (obj: KubeObject) => void;
  validate?: (obj: KubeObject) => StatusCause[];
  validateUpdate?: (obj: KubeObject, old: KubeObject) => StatusCause[];
  validateStatusUpdate?: (obj: KubeObject, old: KubeObject) => StatusCause[];
  validateEphemeralContainersUpdate?: (obj: KubeObject, old: KubeObject) => StatusCause[];
  /**
   * Status handling for kinds with a status subresource. `initial` builds the status a new object starts
   * with (Kubernetes clears what the client sent); `keepOnCreate` lets the client set it (nodes).
   */
  status?: { initial?: (obj: KubeObject) => unknown; keepOnCreate?: boolean };
  /** The kind tracks metadata.generation (Deployments, ReplicaSets, EndpointSlices). */
  generation?: boolean;
  /** A PUT of a missing object creates it. */
  allowCreateOnUpdate?: boolean;
  /** Metadata fields a /status write may not change besides the system ones. */
  statusKeepsMeta?: ('labels' | 'annotations' | 'ownerReferences' | 'finalizers')[];
  prepareForCreate?: (obj: KubeObject, user?: UserInfo) => void;
  prepareForUpdate?: (obj: KubeObject, old: KubeObject) => void;
  prepareForStatusUpdate?: (obj: KubeObject, old: KubeObject) => void;
  subresourceUpdates?: Readonly<Record<string, SubresourceUpdateStrategy>>;
}

/** Everything but metadata, status and type meta: what "spec changed" means for generation. */
export function specOf(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

export function specChanged(obj: KubeObject, old: KubeObject): boolean {
  return !jsonEqual(specOf(obj), specOf(old));
}

export function buildStrategy(resource: ResourceInfo, o: StrategyOptions): ResourceStrategy {
  const status = o.status;
  const s: ResourceStrategy = {
    resource,
    ...(o.generation ? { tracksGeneration: true } : {}),
    ...(o.allowCreateOnUpdate ? { allowCreateOnUpdate: true } : {}),
    selectableFields: (obj) => objectFields(resource, obj),
    prepareForCreate(obj, user) {
      if (status && !status.keepOnCreate) {
        const initial = status.initial?.(obj);
        if (initial === undefined) delete obj.status;
        else obj.status = initial;
      }
      if (o.generation) obj.metadata.generation = 1;
      else delete obj.metadata.generation;
      o.prepareForCreate?.(obj, user);
    },
    prepareForUpdate(obj, old) {
      if (status) {
        if (old.status === undefined) delete obj.status;
        else obj.status = structuredClone(old.status);
      }
      if (o.generation) {
        const gen = old.metadata.generation ?? 1;
        obj.metadata.generation = specChanged(obj, old) ? gen + 1 : gen;
      } else if (old.metadata.generation !== undefined) obj.metadata.generation = old.metadata.generation;
      else delete obj.metadata.generation;
      o.prepareForUpdate?.(obj, old);
    },
    prepareForStatusUpdate(obj, old) {
      // /status changes status only: every other top-level field comes from the stored object.
      for (const k of Object.keys(obj)) if (k !== 'metadata' && k !== 'status' && k !== 'apiVersion' && k !== 'kind') delete obj[k];
      for (const [k, v] of Object.entries(specOf(old))) obj[k] = structuredClone(v);
      if (old.metadata.generation !== undefined) obj.metadata.generation = old.metadata.generation;
      else delete obj.metadata.generation;
      for (const f of o.statusKeepsMeta ?? []) {
        const v = old.metadata[f];
        if (v === undefined) delete obj.metadata[f];
        else (obj.metadata as Record<string, unknown>)[f] = structuredClone(v);
      }
      o.prepareForStatusUpdate?.(obj, old);
    },
  };
  if (o.defaults) s.defaults = o.defaults;
  if (o.subresourceUpdates) s.subresourceUpdates = o.subresourceUpdates;
  if (o.validate) s.validate = o.validate;
  const validate = o.validate;
  if (o.validateUpdate) s.validateUpdate = o.validateUpdate;
  else if (validate) s.validateUpdate = (obj) => validate(obj);
  if (o.validateStatusUpdate) s.validateStatusUpdate = o.validateStatusUpdate;
  if (o.validateEphemeralContainersUpdate) s.validateEphemeralContainersUpdate = o.validateEphemeralContainersUpdate;
  return s;
}
