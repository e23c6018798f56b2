// Pod facts the workload controllers share: controller references, active/ready/available, and the order in
// which a ReplicaSet deletes surplus pods (Kubernetes' ActivePodsWithRanks, with LogarithmicScaleDown).
import { parseTime, type KubeObject, type OwnerReference, type Pod } from '@kemu/api';

export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

export function getControllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** Cache index of dependents by their controller's uid; orphans are filed under orphanKey(namespace). */
export const CONTROLLER_UID_INDEX = 'controllerUID';
export const orphanKey = (namespace: string | undefined) => `orphan/${namespace ?? ''}`;

export function controllerUidIndexFunc(obj: KubeObject): string[] {
  const ref = getControllerOf(obj);
  return [ref ? ref.uid : orphanKey(obj.metadata.namespace)];
}

/** Adds the controller-uid index to an informer (once, whichever controller asks first; before it starts). */
export function ensureControllerIndex<T extends KubeObject>(inf: { addIndexers(i: Record<string, (o: T) => string[]>): void }): void {
  try {
    inf.addIndexers({ [CONTROLLER_UID_INDEX]: controllerUidIndexFunc });
  } catch (e) {
    if (!/conflict/.test(String(e))) throw e;
  }
}

/** What an owner may claim: the objects it controls plus the orphans in its namespace (not every object there). */
export function claimCandidates<T extends KubeObject>(store: { byIndex(index: string, value: string): T[] }, owner: KubeObject): T[] {
  return [...store.byIndex(CONTROLLER_UID_INDEX, owner.metadata.uid ?? ''), ...store.byIndex(CONTROLLER_UID_INDEX, orphanKey(owner.metadata.namespace))];
}

/** Not finished and not being deleted (controller.IsPodActive). */
export function isPodActive(p: Pod): boolean {
  return p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && !p.metadata.deletionTimestamp;
}

export function podReadyCondition(p: Pod) {
  return p.status?.conditions?.find((c) => c.type === 'Ready');
}

export function isPodReady(p: Pod): boolean {
  return podReadyCondition(p)?.status === 'True';
}

/** Ready for at least minReadySeconds (podutil.IsPodAvailable). */
export function isPodAvailable(p: Pod, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(p)) return false;
  if (!minReadySeconds) return true;
  const since = parseTime(podReadyCondition(p)?.lastTransitionTime);
  return !Number.isNaN(since) && since + minReadySeconds * 1000 < now;
}

const PHASE_ORDINAL: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function deletionCost(p: Pod): number {
  const v = p.metadata.annotations?.[POD_DELETION_COST];
  if (v === undefined || !/^[-+]?\d+$/.test(v)) return 0;
  return Number(v);
}

function readyTime(p: Pod): number {
  if (!isPodReady(p)) return NaN;
  return parseTime(podReadyCondition(p)?.lastTransitionTime);
}

function maxRestarts(p: Pod): number {
  return Math.max(0, ...(p.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
}

/** t1 is "after or zero" relative to t2 (NaN = zero time). */
function afterOrZero(t1: number, t2: number): boolean {
  if (Number.isNaN(t1) || Number.isNaN(t2)) return Number.isNaN(t1);
  return t1 > t2;
}

/** Pods whose ages fall in the same power-of-two bucket (of nanoseconds, as Go measures) rank the same. */
function logRankDiff(t1: number, t2: number, now: number): number {
  const rank = (t: number) => {
    const d = (now - t) * 1e6;
    return d > 0 ? Math.floor(Math.log2(d)) : -1;
  };
  return rank(t1) - rank(t2);
}

function uidLess(a: Pod, b: Pod): boolean {
  return (a.metadata.uid ?? '') < (b.metadata.uid ?? '');
}

function compareTimes(a: Pod, b: Pod, t1: number, t2: number, now: number): boolean {
  if (Number.isNaN(t1) || Number.isNaN(t2)) return afterOrZero(t1, t2);
  const d = logRankDiff(t1, t2, now);
  if (d === 0) return uidLess(a, b);
  return d < 0;
}

/** True when a should be deleted before b. rank = active related pods on the same node. */
export function deleteFirst(a: Pod, ra: number, b: Pod, rb: number, now: number): boolean {
  const na = a.spec.nodeName ?? '';
  const nb = b.spec.nodeName ?? '';
  if (na !== nb && (na === '' || nb === '')) return na === '';
  const pa = PHASE_ORDINAL[a.status?.phase ?? ''] ?? 0;
  const pb = PHASE_ORDINAL[b.status?.phase ?? ''] ?? 0;
  if (pa !== pb) return pa < pb;
  if (isPodReady(a) !== isPodReady(b)) return !isPodReady(a);
  const ca = deletionCost(a);
  const cb = deletionCost(b);
  if (ca !== cb) return ca < cb;
  if (ra !== rb) return ra > rb;
  if (isPodReady(a) && isPodReady(b)) {
    const ta = readyTime(a);
    const tb = readyTime(b);
    if (ta !== tb && !(Number.isNaN(ta) && Number.isNaN(tb))) return compareTimes(a, b, ta, tb, now);
  }
  if (maxRestarts(a) !== maxRestarts(b)) return maxRestarts(a) > maxRestarts(b);
  const ka = parseTime(a.metadata.creationTimestamp);
  const kb = parseTime(b.metadata.creationTimestamp);
  if (ka !== kb && !(Number.isNaN(ka) && Number.isNaN(kb))) return compareTimes(a, b, ka, kb, now);
  return false;
}

/** The n pods to delete first: ranked by how many related active pods share their node. */
export function podsToDelete(pods: Pod[], related: Pod[], n: number, now: number): Pod[] {
  if (n >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const p of related) if (isPodActive(p)) onNode.set(p.spec.nodeName ?? '', (onNode.get(p.spec.nodeName ?? '') ?? 0) + 1);
  const ranked = pods.map((p) => ({ p, r: onNode.get(p.spec.nodeName ?? '') ?? 0 }));
  ranked.sort((x, y) => (deleteFirst(x.p, x.r, y.p, y.r, now) ? -1 : deleteFirst(y.p, y.r, x.p, x.r, now) ? 1 : 0));
  return ranked.slice(0, n).map((x) => x.p);
}
