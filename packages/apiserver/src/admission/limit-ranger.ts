// LimitRanger (plugin/pkg/admission/limitranger): a new pod's containers get the default requests and limits
// of the namespace's LimitRanges (type Container), recorded in the kubernetes.io/limit-ranger annotation;
// then min, max and maxLimitRequestRatio (per Container, and summed per Pod) are enforced with Kubernetes'
// messages. A claim's storage request (created or updated) is held to the PersistentVolumeClaim type's min and max.
import { errors, parseQuantity, qualifiedResource, R, type LimitRange, type LimitRangeItem, type ResourceList } from '@kemu/api';
import type { AdmissionAttributes, AdmissionPlugin } from './types.ts';
import { isObj, podCreate } from './types.ts';
import { podQOSClass } from '../defaults/pod.ts';

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

async function limitRanges(attrs: AdmissionAttributes, ctx: Parameters<NonNullable<AdmissionPlugin['admit']>>[1]): Promise<LimitRange[]> {
  if (!ctx.listObjects || !attrs.namespace) return [];
  let items = await ctx.listObjects(R.limitranges, attrs.namespace);
  // As Kubernetes' live lookup: a cache that shows none may not have caught up with a new LimitRange.
  if (items.length === 0) items = await ctx.listObjects(R.limitranges, attrs.namespace, true);
  return (items as LimitRange[]).sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

function resourcesOf(c: Obj): { requests: ResourceList; limits: ResourceList } {
  if (!isObj(c.resources)) c.resources = {};
  const r = c.resources as Obj;
  return { requests: (isObj(r.requests) ? r.requests : {}) as ResourceList, limits: (isObj(r.limits) ? r.limits : {}) as ResourceList };
}

/** mergeContainerResources: defaults the container lacks; returns the annotation phrases. */
function mergeDefaults(c: Obj, defaults: { requests: ResourceList; limits: ResourceList }, fieldName: string): string[] {
  const r = c.resources as Obj;
  const { requests, limits } = resourcesOf(c);
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  for (const [k, v] of Object.entries(defaults.limits)) {
    if (limits[k] === undefined) {
      limits[k] = v;
      setLimits.push(k);
    }
  }
  for (const [k, v] of Object.entries(defaults.requests)) {
    if (requests[k] === undefined) {
      requests[k] = v;
      setRequests.push(k);
    }
  }
  if (Object.keys(limits).length > 0) r.limits = limits;
  if (Object.keys(requests).length > 0) r.requests = requests;
  const out: string[] = [];
  if (setRequests.length > 0) out.push(`${setRequests.sort().join(', ')} request for ${fieldName} ${String(c.name ?? '')}`);
  if (setLimits.length > 0) out.push(`${setLimits.sort().join(', ')} limit for ${fieldName} ${String(c.name ?? '')}`);
  return out;
}

const milli = (q: string | number) => Math.round(parseQuantity(q) * 1000);

function minConstraint(limitType: string, name: string, enforced: string, req: ResourceList, lim: ResourceList): string | undefined {
  if (req[name] === undefined) return `minimum ${name} usage per ${limitType} is ${enforced}.  No request is specified`;
  if (milli(req[name]!) < milli(enforced)) return `minimum ${name} usage per ${limitType} is ${enforced}, but request is ${String(req[name])}`;
  if (lim[name] !== undefined && milli(lim[name]!) < milli(enforced)) return `minimum ${name} usage per ${limitType} is ${enforced}, but limit is ${String(lim[name])}`;
  return undefined;
}

function maxConstraint(limitType: string, name: string, enforced: string, req: ResourceList, lim: ResourceList): string | undefined {
  if (lim[name] === undefined) return `maximum ${name} usage per ${limitType} is ${enforced}.  No limit is specified`;
  if (milli(lim[name]!) > milli(enforced)) return `maximum ${name} usage per ${limitType} is ${enforced}, but limit is ${String(lim[name])}`;
  if (req[name] !== undefined && milli(req[name]!) > milli(enforced)) return `maximum ${name} usage per ${limitType} is ${enforced}, but request is ${String(req[name])}`;
  return undefined;
}

function ratioConstraint(limitType: string, name: string, enforced: string, req: ResourceList, lim: ResourceList): string | undefined {
  const r = req[name] === undefined ? 0 : milli(req[name]!);
  const l = lim[name] === undefined ? 0 : milli(lim[name]!);
  if (r === 0) return `${name} max limit to request ratio per ${limitType} is ${enforced}, but no request is specified or request is 0`;
  if (l === 0) return `${name} max limit to request ratio per ${limitType} is ${enforced}, but no limit is specified or limit is 0`;
  const ratio = l / r;
  if (ratio * 1000 > milli(enforced)) return `${name} max limit to request ratio per ${limitType} is ${enforced}, but provided ratio is ${ratio.toFixed(6)}`;
  return undefined;
}

/** maxRequestConstraint: a claim's max is checked against its request (it has no limit). */
function maxRequestConstraint(limitType: string, name: string, enforced: string, req: ResourceList): string | undefined {
  if (req[name] === undefined) return `maximum ${name} usage per ${limitType} is ${enforced}.  No request is specified`;
  if (milli(req[name]!) > milli(enforced)) return `maximum ${name} usage per ${limitType} is ${enforced}, but request is ${String(req[name])}`;
  return undefined;
}

/** PersistentVolumeClaimValidateLimitFunc. */
function checkClaim(item: LimitRangeItem, requests: ResourceList, out: string[]): void {
  const sorted = (m: ResourceList | undefined) => Object.entries(m ?? {}).sort(([a], [b]) => a.localeCompare(b));
  for (const [k, v] of sorted(item.min)) {
    const e = minConstraint('PersistentVolumeClaim', k, String(v), requests, {});
    if (e) out.push(e);
  }
  for (const [k, v] of sorted(item.max)) {
    const e = maxRequestConstraint('PersistentVolumeClaim', k, String(v), requests);
    if (e) out.push(e);
  }
}

/** A claim create or update on the main resource. */
function claimWrite(attrs: AdmissionAttributes): Obj | undefined {
  if ((attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') || attrs.subresource || attrs.resource.group !== '' || attrs.resource.plural !== 'persistentvolumeclaims') return undefined;
  return attrs.object as Obj | undefined;
}

function refuse(attrs: AdmissionAttributes, errs: string[]): never {
  const o = attrs.object;
  const name = o?.metadata.name || o?.metadata.generateName || attrs.name;
  throw errors.forbidden(`${qualifiedResource(attrs.resource)} "${name}" is forbidden: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`);
}

function checkItem(item: LimitRangeItem, limitType: string, req: ResourceList, lim: ResourceList, out: string[]): void {
  const sorted = (m: ResourceList | undefined) => Object.entries(m ?? {}).sort(([a], [b]) => a.localeCompare(b));
  for (const [k, v] of sorted(item.min)) {
    const e = minConstraint(limitType, k, String(v), req, lim);
    if (e) out.push(e);
  }
  for (const [k, v] of sorted(item.max)) {
    const e = maxConstraint(limitType, k, String(v), req, lim);
    if (e) out.push(e);
  }
  for (const [k, v] of sorted(item.maxLimitRequestRatio)) {
    const e = ratioConstraint(limitType, k, String(v), req, lim);
    if (e) out.push(e);
  }
}

function sum(lists: ResourceList[]): ResourceList {
  const out: Record<string, number> = {};
  for (const l of lists) for (const [k, v] of Object.entries(l)) out[k] = (out[k] ?? 0) + milli(v);
  return Object.fromEntries(Object.entries(out).map(([k, m]) => [k, m % 1000 === 0 ? String(m / 1000) : `${m}m`]));
}

export const limitRangerPlugin: AdmissionPlugin = {
  name: 'LimitRanger',
  async admit(attrs, ctx) {
    const pod = podCreate(attrs);
    if (!pod) return;
    const ranges = await limitRanges(attrs, ctx);
    const phrases: string[] = [];
    for (const lr of ranges) {
      // defaultContainerResourceRequirements: the LimitRange's Container defaults.
      const defaults: { requests: ResourceList; limits: ResourceList } = { requests: {}, limits: {} };
      for (const item of lr.spec?.limits ?? []) {
        if (item.type !== 'Container') continue;
        Object.assign(defaults.requests, item.defaultRequest ?? {});
        Object.assign(defaults.limits, item.default ?? {});
      }
      if (Object.keys(defaults.requests).length === 0 && Object.keys(defaults.limits).length === 0) continue;
      for (const c of list(pod.spec.containers)) phrases.push(...mergeDefaults(c, defaults, 'container'));
      for (const c of list(pod.spec.initContainers)) phrases.push(...mergeDefaults(c, defaults, 'init container'));
    }
    if (phrases.length === 0) return;
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${phrases.join('; ')}` };
    // Kubernetes computes status.qosClass after mutating admission; kemu's registry prepares the pod first.
    if (isObj(pod.status) && pod.status.qosClass !== undefined) pod.status.qosClass = podQOSClass(pod.spec);
  },
  async validate(attrs, ctx) {
    const claim = claimWrite(attrs);
    if (claim) {
      const ranges = await limitRanges(attrs, ctx);
      const errs: string[] = [];
      const spec = isObj(claim.spec) ? claim.spec : {};
      const requests = (isObj(spec.resources) && isObj(spec.resources.requests) ? spec.resources.requests : {}) as ResourceList;
      for (const lr of ranges) for (const item of lr.spec?.limits ?? []) if (item.type === 'PersistentVolumeClaim') checkClaim(item, requests, errs);
      if (errs.length > 0) refuse(attrs, errs);
      return;
    }
    const pod = podCreate(attrs);
    if (!pod) return;
    const errs: string[] = [];
    for (const lr of await limitRanges(attrs, ctx)) {
      for (const item of lr.spec?.limits ?? []) {
        if (item.type === 'Container') {
          for (const c of [...list(pod.spec.containers), ...list(pod.spec.initContainers)]) {
            const { requests, limits } = resourcesOf(c);
            checkItem(item, 'Container', requests, limits, errs);
          }
        } else if (item.type === 'Pod') {
          const cs = list(pod.spec.containers).map(resourcesOf);
          checkItem(item, 'Pod', sum(cs.map((c) => c.requests)), sum(cs.map((c) => c.limits)), errs);
        }
      }
    }
    if (errs.length > 0) refuse(attrs, errs);
  },
};
