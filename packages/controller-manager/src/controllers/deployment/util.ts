// Deployment facts with no I/O: annotation and reason names, the pod-template hash, template equality, the
// maxSurge/maxUnavailable fenceposts, replica sums, revisions and condition bookkeeping (Kubernetes'
// deployment/util package).
import { formatTime, parseTime, type Condition, type Deployment, type DeploymentStatus, type IntOrString, type PodTemplateSpec, type ReplicaSet } from '@kemu/api';

export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
export const POD_TEMPLATE_HASH = 'pod-template-hash';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const ROLLBACK_TO = 'deprecated.deployment.rollback.to';

export const REASONS = {
  NewReplicaSetCreated: 'NewReplicaSetCreated',
  FoundNewReplicaSet: 'FoundNewReplicaSet',
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  NewReplicaSetAvailable: 'NewReplicaSetAvailable',
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  FailedRSCreate: 'ReplicaSetCreateError',
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
  DeploymentPaused: 'DeploymentPaused',
  DeploymentResumed: 'DeploymentResumed',
} as const;

const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** rand.SafeEncodeString: each character mapped into an alphabet without vowels or look-alikes. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += SAFE_ALPHANUMS[s.charCodeAt(i) % SAFE_ALPHANUMS.length];
  return out;
}

/** JSON with sorted keys and empty values dropped: one text per semantically equal template. */
export function canonical(v: unknown, dropZero = false): string {
  return JSON.stringify(normalize(v, dropZero)) ?? '';
}

function normalize(v: unknown, dropZero: boolean): unknown {
  if (Array.isArray(v)) return v.map((x) => normalize(x, dropZero));
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = normalize((v as Record<string, unknown>)[k], dropZero);
      if (x === undefined || x === null) continue;
      if (dropZero && (x === 0 || x === false)) continue;
      if (typeof x === 'object' && Object.keys(x as object).length === 0) continue;
      out[k] = x;
    }
    return out;
  }
  return v;
}

export function fnv32a(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** controller.ComputeHash: FNV-32a of the template (+ collisionCount, little-endian uint32), safe-encoded. */
export function computeHash(template: PodTemplateSpec, collisionCount?: number): string {
  let h = fnv32a(new TextEncoder().encode(canonical(template)));
  if (collisionCount !== undefined) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(b, h);
  }
  return safeEncodeString(String(h));
}

/** Templates equal apart from the pod-template-hash label (EqualIgnoreHash). */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  const strip = (t: PodTemplateSpec | undefined) => {
    const c = structuredClone(t ?? { spec: { containers: [] } });
    if (c.metadata?.labels) delete c.metadata.labels[POD_TEMPLATE_HASH];
    return canonical(c);
  };
  return strip(a) === strip(b);
}

/** intstr.GetScaledValueFromIntOrPercent. */
export function scaledValue(v: IntOrString | undefined, total: number, roundUp: boolean, dflt: IntOrString): number {
  const x = v ?? dflt;
  if (typeof x === 'number') return x;
  const m = /^(\d+)%$/.exec(x);
  if (!m) {
    if (/^\d+$/.test(x)) return Number(x);
    throw new Error(`invalid value for IntOrString: invalid value "${x}"`);
  }
  const frac = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(frac) : Math.floor(frac);
}

export function isRollingUpdate(d: Deployment): boolean {
  return (d.spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

export function replicas(d: Deployment): number {
  return d.spec.replicas ?? 1;
}

export function rsReplicas(rs: ReplicaSet | undefined): number {
  return rs?.spec.replicas ?? 0;
}

/** ResolveFenceposts: surge rounds up, unavailable rounds down, and both zero means one unavailable. */
export function resolveFenceposts(d: Deployment): { surge: number; unavailable: number } {
  const ru = d.spec.strategy?.rollingUpdate;
  const desired = replicas(d);
  const surge = scaledValue(ru?.maxSurge, desired, true, '25%');
  let unavailable = scaledValue(ru?.maxUnavailable, desired, false, '25%');
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(d: Deployment): number {
  return isRollingUpdate(d) ? resolveFenceposts(d).surge : 0;
}

export function maxUnavailable(d: Deployment): number {
  if (!isRollingUpdate(d) || replicas(d) === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, replicas(d));
}

export const sumSpecReplicas = (rss: (ReplicaSet | undefined)[]) => rss.reduce((n, rs) => n + rsReplicas(rs), 0);
export const sumStatusReplicas = (rss: (ReplicaSet | undefined)[]) => rss.reduce((n, rs) => n + (rs?.status?.replicas ?? 0), 0);
export const sumAvailable = (rss: (ReplicaSet | undefined)[]) => rss.reduce((n, rs) => n + (rs?.status?.availableReplicas ?? 0), 0);
export const sumReady = (rss: (ReplicaSet | undefined)[]) => rss.reduce((n, rs) => n + (rs?.status?.readyReplicas ?? 0), 0);

export function activeReplicaSets(rss: ReplicaSet[]): ReplicaSet[] {
  return rss.filter((rs) => rsReplicas(rs) > 0);
}

export function revisionOf(obj: { metadata: { annotations?: Record<string, string> } }): number {
  const v = obj.metadata.annotations?.[REVISION];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : 0;
}

function created(rs: ReplicaSet): number {
  const t = parseTime(rs.metadata.creationTimestamp);
  return Number.isNaN(t) ? 0 : t;
}

/** Oldest first; ties broken by name (ReplicaSetsByCreationTimestamp). */
export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  return created(a) - created(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
}

/** Larger first; equal sizes newer first (ReplicaSetsBySizeNewer, for scaling up). */
export function bySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  return rsReplicas(b) - rsReplicas(a) || created(b) - created(a) || (b.metadata.name ?? '').localeCompare(a.metadata.name ?? '');
}

/** Larger first; equal sizes older first (ReplicaSetsBySizeOlder, for scaling down). */
export function bySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  return rsReplicas(b) - rsReplicas(a) || byCreation(a, b);
}

export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  return revisionOf(a) - revisionOf(b) || byCreation(a, b);
}

/** The replica set whose template is the deployment's (oldest first, as Kubernetes picks). */
export function findNewReplicaSet(d: Deployment, rss: ReplicaSet[]): ReplicaSet | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec.template, d.spec.template));
}

export function findOldReplicaSets(d: Deployment, rss: ReplicaSet[], newRS: ReplicaSet | undefined): ReplicaSet[] {
  return rss.filter((rs) => rs.metadata.uid !== newRS?.metadata.uid);
}

export function intAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const v = rs.metadata.annotations?.[key];
  return v !== undefined && /^-?\d+$/.test(v) ? Number(v) : undefined;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  return rs.metadata.annotations?.[DESIRED_REPLICAS] !== String(desired) || rs.metadata.annotations?.[MAX_REPLICAS] !== String(max);
}

export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): void {
  rs.metadata.annotations = { ...(rs.metadata.annotations ?? {}), [DESIRED_REPLICAS]: String(desired), [MAX_REPLICAS]: String(max) };
}

function skipCopy(key: string): boolean {
  return [LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, ROLLBACK_TO].includes(key);
}

/** Copies the deployment's own annotations onto the replica set; true if anything changed. */
export function copyDeploymentAnnotations(d: Deployment, rs: ReplicaSet): boolean {
  let changed = false;
  const out = { ...(rs.metadata.annotations ?? {}) };
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (skipCopy(k) || out[k] === v) continue;
    out[k] = v;
    changed = true;
  }
  if (changed) rs.metadata.annotations = out;
  return changed;
}

/** SetNewReplicaSetAnnotations: copies annotations and moves the revision forward (recording history). */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean): boolean {
  let changed = copyDeploymentAnnotations(d, rs);
  const annotations = { ...(rs.metadata.annotations ?? {}) };
  const old = annotations[REVISION];
  const oldNum = old !== undefined && /^\d+$/.test(old) ? Number(old) : 0;
  if (old === undefined || oldNum < newRevision) {
    annotations[REVISION] = String(newRevision);
    changed = true;
    if (old !== undefined && exists) {
      const hist = annotations[REVISION_HISTORY];
      annotations[REVISION_HISTORY] = hist ? `${hist},${old}` : old;
    }
  }
  if (!exists) {
    annotations[DESIRED_REPLICAS] = String(replicas(d));
    annotations[MAX_REPLICAS] = String(replicas(d) + maxSurge(d));
    changed = true;
  }
  rs.metadata.annotations = annotations;
  return changed;
}

export function getCondition(status: DeploymentStatus | undefined, type: string): Condition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

export function newCondition(type: string, status: Condition['status'], reason: string, message: string, now: number): Condition {
  const t = formatTime(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/** SetDeploymentCondition: same status and reason → unchanged; same status → keeps lastTransitionTime. */
export function setCondition(status: DeploymentStatus, cond: Condition): void {
  const cur = getCondition(status, cond.type);
  if (cur && cur.status === cond.status && cur.reason === cond.reason) return;
  const next = { ...cond };
  if (cur && cur.status === cond.status && cur.lastTransitionTime) next.lastTransitionTime = cur.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== cond.type), next];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  if (status.conditions) status.conditions = status.conditions.filter((c) => c.type !== type);
}

export function hasProgressDeadline(d: Deployment): boolean {
  const s = d.spec.progressDeadlineSeconds;
  return s !== undefined && s !== 2147483647;
}

/** DeploymentComplete: every desired replica updated and available, and the spec observed. */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const n = replicas(d);
  return (s.updatedReplicas ?? 0) === n && (s.replicas ?? 0) === n && (s.availableReplicas ?? 0) === n && (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available than last time. */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const cond = getCondition(s, 'Progressing');
  if (!cond) return false;
  if (cond.reason === REASONS.NewReplicaSetAvailable) return false;
  if (cond.reason === REASONS.ProgressDeadlineExceeded) return true;
  const from = parseTime(cond.lastUpdateTime);
  if (Number.isNaN(from)) return false;
  return from + (d.spec.progressDeadlineSeconds ?? 600) * 1000 < now;
}

export function statusEqual(a: DeploymentStatus | undefined, b: DeploymentStatus): boolean {
  // Zero counts may come back omitted (Go's omitempty); they must not look like a change.
  return canonical(a ?? {}, true) === canonical(b, true);
}
