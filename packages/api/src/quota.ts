// Resource quota accounting shared by the ResourceQuota admission plugin and the resourcequota controller
// (Kubernetes' pkg/quota/v1: the pod and object-count evaluators, resource list arithmetic). Quantities are
// summed in milli-units and printed in Kubernetes' canonical form ("500m", "1", "256Mi").
import { parseQuantity } from './quantity.ts';
import { qualifiedResource, type ResourceInfo } from './resources.ts';
import type { ResourceList } from './core.ts';
import type { KubeObject } from './meta.ts';
import type { ResourceQuota } from './policy.ts';

const BINARY_SUFFIXES: [string, number][] = [
  ['Ei', 2 ** 60],
  ['Pi', 2 ** 50],
  ['Ti', 2 ** 40],
  ['Gi', 2 ** 30],
  ['Mi', 2 ** 20],
  ['Ki', 2 ** 10],
];
const DECIMAL_SUFFIXES: [string, number][] = [
  ['E', 1e18],
  ['P', 1e15],
  ['T', 1e12],
  ['G', 1e9],
  ['M', 1e6],
  ['k', 1e3],
];

interface Q {
  milli: number;
  binary: boolean;
}

function toQ(q: string | number): Q {
  return { milli: Math.round(parseQuantity(q) * 1000), binary: typeof q === 'string' && /i$/.test(q.trim()) };
}

/** Quantity.String() of a value in milli-units: binary suffixes for binary quantities, else decimal. */
export function formatMilli(milli: number, binary: boolean): string {
  if (milli % 1000 !== 0) return `${milli}m`;
  const v = milli / 1000;
  if (v === 0) return '0';
  const table = binary ? BINARY_SUFFIXES : DECIMAL_SUFFIXES;
  for (const [suffix, mult] of table) if (Math.abs(v) >= mult && v % mult === 0) return `${v / mult}${suffix}`;
  return String(v);
}

export function addResourceLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const x = toQ(v);
    const cur = out[k];
    if (cur === undefined) out[k] = formatMilli(x.milli, x.binary);
    else {
      const y = toQ(cur);
      out[k] = formatMilli(y.milli + x.milli, y.binary || (y.milli === 0 && x.binary));
    }
  }
  return out;
}

/** quota.Mask: only the named resources. */
export function maskResourceList(l: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = {};
  for (const n of names) if (l[n] !== undefined) out[n] = l[n]!;
  return out;
}

/** quota.LessThanOrEqual: the resources of a that exceed hard (only those hard names). */
export function exceededResources(a: ResourceList, hard: ResourceList): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(a)) {
    const h = hard[k];
    if (h !== undefined && toQ(v).milli > toQ(h).milli) out.push(k);
  }
  return out.sort();
}

/** quota.SubtractWithNonNegativeResult: a - b per name of a, never below zero. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) {
    const x = toQ(v);
    const y = b[k] === undefined ? 0 : toQ(b[k]!).milli;
    out[k] = formatMilli(Math.max(0, x.milli - y), x.binary);
  }
  return out;
}

/** quota.RemoveZeros. */
export function removeZeros(l: ResourceList): ResourceList {
  return Object.fromEntries(Object.entries(l).filter(([, v]) => toQ(v).milli !== 0));
}

/** The same values compared as quantities ("1000m" equals "1"). */
export function resourceListsEqual(a: ResourceList, b: ResourceList): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => b[k] !== undefined && toQ(a[k]!).milli === toQ(b[k]!).milli);
}

/** "k=v,k=v" sorted by name, as the quota messages print resource lists. */
export function prettyPrintResourceList(l: ResourceList): string {
  return Object.keys(l)
    .sort()
    .map((k) => `${k}=${String(l[k])}`)
    .join(',');
}

/** count/<resource>[.<group>]: the object count name of a resource. */
export function objectCountName(r: { group: string; plural: string }): string {
  return `count/${qualifiedResource(r)}`;
}

/** The classic (pre-count/) names that also count objects of these core resources. */
const LEGACY_COUNTS: Record<string, string> = {
  pods: 'pods',
  services: 'services',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
  secrets: 'secrets',
  configmaps: 'configmaps',
  persistentvolumeclaims: 'persistentvolumeclaims',
};

/** The compute resources a pod is charged for (podComputeUsageHelper) plus pods itself. */
export const POD_COMPUTE_RESOURCES = new Set(['pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage']);

/** What each container must state when a quota tracks it (the evaluator's validationSet). */
const POD_VALIDATION_SET = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

/** podComputeUsageHelper: requests → cpu/requests.cpu…, limits → limits.cpu…, extended requests → requests.<name>. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = { pods: '1' };
  for (const [k, v] of Object.entries(requests)) {
    if (k === 'cpu' || k === 'memory' || k === 'ephemeral-storage') {
      out[k] = v;
      out[`requests.${k}`] = v;
    } else if (k.includes('/') || k.startsWith('hugepages-')) out[`requests.${k}`] = v;
  }
  for (const [k, v] of Object.entries(limits)) if (k === 'cpu' || k === 'memory' || k === 'ephemeral-storage') out[`limits.${k}`] = v;
  return out;
}

function containerResources(c: Obj): { requests: ResourceList; limits: ResourceList } {
  const r = obj(c.resources);
  return { requests: obj(r.requests) as ResourceList, limits: obj(r.limits) as ResourceList };
}

/** resourcehelper.PodRequests/PodLimits: containers summed, the largest init container if larger, plus overhead. */
function podResources(spec: Obj, which: 'requests' | 'limits'): ResourceList {
  let sum: ResourceList = {};
  for (const c of list(spec.containers)) sum = addResourceLists(sum, containerResources(c)[which]);
  for (const c of list(spec.initContainers)) {
    const r = containerResources(c)[which];
    for (const [k, v] of Object.entries(r)) if (sum[k] === undefined || toQ(v).milli > toQ(sum[k]!).milli) sum[k] = v;
  }
  if (spec.overhead) sum = addResourceLists(sum, obj(spec.overhead) as ResourceList);
  return sum;
}

/** QuotaV1Pod: a pod still charged for compute (not terminal, not past its deletion grace period). */
export function podChargedForCompute(pod: KubeObject, now: number): boolean {
  const phase = obj(pod.status).phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const del = pod.metadata.deletionTimestamp;
  if (del) {
    const grace = (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
    if (now > Date.parse(del) + grace) return false;
  }
  return true;
}

/** PodUsageFunc: count/pods always; compute resources while the pod is charged. */
export function podUsage(pod: KubeObject, now: number): ResourceList {
  const out: ResourceList = { 'count/pods': '1' };
  if (!podChargedForCompute(pod, now)) return out;
  const spec = obj(pod.spec);
  return { ...out, ...computeUsage(podResources(spec, 'requests'), podResources(spec, 'limits')) };
}

const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
const BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** The class a claim asks for (the beta annotation wins, as GetPersistentVolumeClaimClass), or ''. */
function claimClass(o: KubeObject): string {
  const beta = o.metadata.annotations?.[BETA_STORAGE_CLASS];
  if (beta !== undefined) return beta;
  const c = obj(o.spec).storageClassName;
  return typeof c === 'string' ? c : '';
}

/**
 * The pvc evaluator's usage: requests.storage (the larger of the request and status.allocatedResources, so a
 * shrunk request after a failed expansion is still charged) and the same per storage class.
 */
function claimUsage(o: KubeObject): ResourceList {
  const out: ResourceList = {};
  const request = obj(obj(obj(o.spec).resources).requests).storage;
  const allocated = obj(obj(o.status).allocatedResources).storage;
  let storage: string | undefined;
  if (typeof request === 'string' || typeof request === 'number') storage = String(request);
  if ((typeof allocated === 'string' || typeof allocated === 'number') && (storage === undefined || toQ(allocated).milli > toQ(storage).milli)) storage = String(allocated);
  if (storage !== undefined) out['requests.storage'] = storage;
  const cls = claimClass(o);
  if (cls !== '') {
    out[`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`] = '1';
    if (storage !== undefined) out[`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`] = storage;
  }
  return out;
}

const isClaims = (r: { group: string; plural: string }) => r.group === '' && r.plural === 'persistentvolumeclaims';

/**
 * Whether the quota admission charges an UPDATE of this resource (the evaluator's Handles): services (a type
 * change to NodePort or LoadBalancer) and claims (a larger storage request); pods and counted objects are
 * charged on create only.
 */
export function quotaChargesUpdates(r: { group: string; plural: string }): boolean {
  return r.group === '' && (r.plural === 'services' || r.plural === 'persistentvolumeclaims');
}

/** The usage one object adds: pods by their evaluator, every other kind its object count (and classic name). */
export function objectUsage(r: ResourceInfo, o: KubeObject, now: number): ResourceList {
  if (r.group === '' && r.plural === 'pods') return podUsage(o, now);
  const out: ResourceList = { [objectCountName(r)]: '1' };
  if (r.group === '' && LEGACY_COUNTS[r.plural]) out[LEGACY_COUNTS[r.plural]!] = '1';
  if (isClaims(r)) Object.assign(out, claimUsage(o));
  if (r.group === '' && r.plural === 'services') {
    const type = obj(o.spec).type;
    if (type === 'LoadBalancer') out['services.loadbalancers'] = '1';
    if (type === 'NodePort' || type === 'LoadBalancer') out['services.nodeports'] = String(list(obj(o.spec).ports).length);
  }
  return out;
}

/** MatchingResources: the quota resource names an object of r can be charged for. */
export function matchingResources(r: ResourceInfo, names: string[]): string[] {
  const pods = r.group === '' && r.plural === 'pods';
  return names.filter((n) => {
    if (n === objectCountName(r)) return true;
    if (pods) return POD_COMPUTE_RESOURCES.has(n) || n.startsWith('requests.');
    if (r.group === '' && LEGACY_COUNTS[r.plural] === n) return true;
    if (isClaims(r)) return n === 'requests.storage' || (n.includes(STORAGE_CLASS_SUFFIX) && /\/(requests\.storage|persistentvolumeclaims)$/.test(n));
    return r.group === '' && r.plural === 'services' && (n === 'services.loadbalancers' || n === 'services.nodeports');
  });
}

function podQOS(spec: Obj): 'BestEffort' | 'Other' {
  for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
    const { requests, limits } = containerResources(c);
    if (Object.keys(requests).length > 0 || Object.keys(limits).length > 0) return 'Other';
  }
  return 'BestEffort';
}

/** Whether a quota's scopes and scopeSelector cover the object (scoped quotas cover pods only). */
export function quotaMatches(q: ResourceQuota, r: ResourceInfo, o: KubeObject): boolean {
  const scopes = [...(q.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists', values: [] as string[] })), ...(q.spec?.scopeSelector?.matchExpressions ?? [])];
  if (scopes.length === 0) return true;
  if (!(r.group === '' && r.plural === 'pods')) return false;
  const spec = obj(o.spec);
  return scopes.every((s) => {
    const terminating = spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null;
    const bestEffort = podQOS(spec) === 'BestEffort';
    let has: boolean;
    switch (s.scopeName) {
      case 'Terminating':
        has = terminating;
        break;
      case 'NotTerminating':
        has = !terminating;
        break;
      case 'BestEffort':
        has = bestEffort;
        break;
      case 'NotBestEffort':
        has = !bestEffort;
        break;
      case 'PriorityClass': {
        const pc = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
        if (s.operator === 'Exists') return pc !== '';
        if (s.operator === 'DoesNotExist') return pc === '';
        const inValues = (s.values ?? []).includes(pc);
        return s.operator === 'In' ? inValues : !inValues;
      }
      default:
        return false;
    }
    return s.operator === 'DoesNotExist' ? !has : has;
  });
}

/** podEvaluator.Constraints: "must specify limits.cpu for: a,b; requests.memory for: a", or undefined. */
export function podQuotaConstraints(pod: KubeObject, required: string[]): string | undefined {
  const needed = required.filter((n) => POD_VALIDATION_SET.includes(n));
  if (needed.length === 0) return undefined;
  const missing = new Map<string, Set<string>>();
  const spec = obj(pod.spec);
  for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
    const { requests, limits } = containerResources(c);
    const has = computeUsage(requests, limits);
    for (const n of needed) if (has[n] === undefined) missing.set(n, (missing.get(n) ?? new Set()).add(String(c.name ?? '')));
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((n) => `${n} for: ${[...missing.get(n)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}
