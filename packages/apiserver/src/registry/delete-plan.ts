// What a DELETE does to an object, as Kubernetes decides it: propagationPolicy Foreground/Orphan add the
// garbage collector's finalizers; an object with finalizers gets deletionTimestamp and stays; a pod bound
// to a node is deleted gracefully (deletionTimestamp = now + grace, kept until deleted with grace 0);
// a namespace turns Terminating until its spec.finalizers are emptied through /finalize.
import { errors, formatTime, R, type DeleteOptions, type KubeObject, type ResourceInfo, type StatusCause } from '@kemu/api';
import { deleteOptionsTypeError } from './json-types.ts';
import { fieldErrors, isRecord } from '../validation/field.ts';
import type { DeletePlan, DeleteRequest } from './registry.ts';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';
const DEFAULT_POD_GRACE_SECONDS = 30;

/**
 * Parses a DeleteOptions body (or {}) merged with the query parameters. A body value of the wrong JSON type is a
 * 400 with Go's decoder error; ValidateDeleteOptions' findings (propagationPolicy, dryRun) are a 422.
 */
export function parseDeleteOptions(body: unknown, query: URLSearchParams): DeleteOptions {
  const out: DeleteOptions = {};
  if (body !== undefined && body !== null && body !== '') {
    if (typeof body !== 'object' || Array.isArray(body)) throw errors.badRequest(`json: cannot unmarshal ${Array.isArray(body) ? 'array' : typeof body} into Go value of type v1.DeleteOptions`);
    const b = body as Record<string, unknown>;
    const typeError = deleteOptionsTypeError(b);
    if (typeError) throw errors.badRequest(typeError);
    if (typeof b.gracePeriodSeconds === 'number') out.gracePeriodSeconds = b.gracePeriodSeconds;
    if (typeof b.propagationPolicy === 'string') out.propagationPolicy = policy(b.propagationPolicy);
    if (typeof b.orphanDependents === 'boolean') out.orphanDependents = b.orphanDependents;
    if (isRecord(b.preconditions)) {
      const p = b.preconditions;
      out.preconditions = {};
      if (typeof p.uid === 'string') out.preconditions.uid = p.uid;
      if (typeof p.resourceVersion === 'string') out.preconditions.resourceVersion = p.resourceVersion;
    }
    if (Array.isArray(b.dryRun)) out.dryRun = b.dryRun.filter((x): x is string => typeof x === 'string');
  }
  const g = query.get('gracePeriodSeconds');
  if (g !== null && g !== '') {
    if (!/^-?\d+$/.test(g)) throw errors.badRequest(`gracePeriodSeconds: invalid value "${g}"`);
    out.gracePeriodSeconds = Number(g);
  }
  const p = query.get('propagationPolicy');
  if (p) out.propagationPolicy = policy(p);
  // A query boolean is false only for "0" and "false" (any case): Kubernetes' Convert_Slice_string_To_Pointer_bool.
  const o = query.get('orphanDependents');
  if (o !== null) out.orphanDependents = !(o === '0' || o.toLowerCase() === 'false');
  const causes: StatusCause[] = [];
  if (out.orphanDependents !== undefined && out.propagationPolicy !== undefined)
    causes.push(fieldErrors.invalid('propagationPolicy', out.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  const badDryRun = (out.dryRun ?? []).some((v) => v !== 'All');
  if (badDryRun) causes.push(fieldErrors.notSupported('dryRun', out.dryRun, ['All']));
  if (causes.length > 0) throw errors.invalid('meta.k8s.io', 'DeleteOptions', '', causes);
  return out;
}

function policy(v: unknown): 'Orphan' | 'Background' | 'Foreground' {
  if (v === 'Orphan' || v === 'Background' || v === 'Foreground') return v;
  throw errors.invalid('meta.k8s.io', 'DeleteOptions', '', [
    { reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: "${String(v)}": supported values: "Foreground", "Background", "Orphan", "nil"` },
  ]);
}

function withFinalizers(obj: KubeObject, add: string | undefined, remove: string | undefined): void {
  let list = obj.metadata.finalizers ?? [];
  if (remove) list = list.filter((f) => f !== remove);
  if (add && !list.includes(add)) list = [...list, add];
  if (list.length > 0) obj.metadata.finalizers = list;
  else delete obj.metadata.finalizers;
}

function podGrace(pod: KubeObject, opts: DeleteOptions): number {
  const spec = (pod.spec ?? {}) as { nodeName?: unknown; terminationGracePeriodSeconds?: unknown };
  const status = (pod.status ?? {}) as { phase?: unknown };
  if (typeof spec.nodeName !== 'string' || spec.nodeName === '') return 0; // never ran: nothing to stop
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return 0;
  let grace = opts.gracePeriodSeconds;
  if (grace === undefined) grace = typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : DEFAULT_POD_GRACE_SECONDS;
  return grace < 0 ? 1 : grace;
}

export function deleteRequest(r: ResourceInfo, opts: DeleteOptions): DeleteRequest {
  const req: DeleteRequest = {
    plan(cur: KubeObject, now: number): DeletePlan {
      const next = structuredClone(cur);
      const m = next.metadata;
      const pol = opts.propagationPolicy ?? (opts.orphanDependents === true ? 'Orphan' : opts.orphanDependents === false ? 'Background' : undefined);
      if (pol === 'Foreground') withFinalizers(next, FOREGROUND_FINALIZER, ORPHAN_FINALIZER);
      else if (pol === 'Orphan') withFinalizers(next, ORPHAN_FINALIZER, FOREGROUND_FINALIZER);
      else if (pol === 'Background') withFinalizers(next, undefined, ORPHAN_FINALIZER);

      if (r === R.namespaces) {
        const spec = (next.spec ?? {}) as { finalizers?: unknown };
        const specFinalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
        if (specFinalizers.length === 0 && (m.finalizers ?? []).length === 0) return { kind: 'delete' };
        if (!m.deletionTimestamp) {
          m.deletionTimestamp = formatTime(now);
          m.deletionGracePeriodSeconds = 0;
        }
        next.status = { ...((next.status as object | undefined) ?? {}), phase: 'Terminating' };
        return { kind: 'mark', object: next };
      }

      // A CRD's objects go first: it is marked Terminating with the cleanup finalizer (crd/cleanup.ts).
      if (r === R.customresourcedefinitions && !m.deletionTimestamp) {
        m.deletionTimestamp = formatTime(now);
        m.deletionGracePeriodSeconds = 0;
        withFinalizers(next, CRD_CLEANUP_FINALIZER, undefined);
        const status = (isRecord(next.status) ? next.status : {}) as Record<string, unknown>;
        const conds = (Array.isArray(status.conditions) ? status.conditions : []).filter((c) => !(isRecord(c) && c.type === 'Terminating'));
        conds.push({ type: 'Terminating', status: 'True', lastTransitionTime: formatTime(now), reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' });
        next.status = { ...status, conditions: conds };
        return { kind: 'mark', object: next };
      }

      let grace = r === R.pods ? podGrace(cur, opts) : 0;
      if (m.deletionTimestamp) {
        // Already being deleted: only a shorter grace period changes anything.
        const prevGrace = m.deletionGracePeriodSeconds ?? 0;
        if (grace >= prevGrace) grace = prevGrace;
        if (grace === 0 && (m.finalizers ?? []).length === 0) return { kind: 'delete' };
        if (grace < prevGrace) {
          m.deletionTimestamp = formatTime(now + grace * 1000);
          m.deletionGracePeriodSeconds = grace;
        }
        return { kind: 'mark', object: next };
      }
      if (grace === 0 && (m.finalizers ?? []).length === 0) return { kind: 'delete' };
      m.deletionTimestamp = formatTime(now + grace * 1000);
      m.deletionGracePeriodSeconds = grace;
      // rest.BeforeDelete bumps generation only for kinds that track it (generation > 0).
      if ((m.generation ?? 0) > 0) m.generation = (m.generation ?? 0) + 1;
      return { kind: 'mark', object: next };
    },
  };
  if (opts.preconditions) req.preconditions = opts.preconditions;
  return req;
}
