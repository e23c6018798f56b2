// certificatesigningrequests (pkg/registry/certificates/certificates/strategy.go): the apiserver records who
// asked in spec (username, uid, groups, extra) and starts with an empty status; afterwards spec never changes.
// The main resource changes only metadata, /status changes the certificate and conditions other than
// Approved/Denied, /approval changes only the conditions; new conditions get their timestamps from the server.
import { formatTime, R, type KubeObject } from '@kemu/api';
import type { UserInfo } from '../authn/user.ts';
import { isRecord } from '../validation/field.ts';
import { conditionsOf, validateCsrApprovalUpdate, validateCsrCreate, validateCsrStatusUpdate, validateCsrUpdate } from '../validation/certificates.ts';
import { buildStrategy } from './common.ts';

type Obj = Record<string, unknown>;

function specObj(o: KubeObject): Obj {
  if (!isRecord(o.spec)) o.spec = {};
  return o.spec as Obj;
}

function statusObj(o: KubeObject): Obj {
  if (!isRecord(o.status)) o.status = {};
  return o.status as Obj;
}

/** PrepareForCreate: whatever the client wrote, spec's user fields are the requester's. */
export function recordRequester(o: KubeObject, user: UserInfo | undefined): void {
  const spec = specObj(o);
  for (const f of ['username', 'uid', 'groups', 'extra']) delete spec[f];
  if (!user) return;
  // Empty values are left out, as Go's omitempty writes them.
  if (user.username) spec.username = user.username;
  if (user.uid) spec.uid = user.uid;
  if (user.groups.length > 0) spec.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) spec.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
}

/**
 * populateConditionTimestamps: a condition without lastUpdateTime gets now; one without lastTransitionTime
 * keeps the time of an old condition of the same type and status, else now.
 */
export function populateConditionTimestamps(o: KubeObject, old: KubeObject, nowMs: number): void {
  const now = formatTime(nowMs);
  const before = conditionsOf(old);
  for (const c of conditionsOf(o)) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const same = before.find((b) => b.type === c.type && b.status === c.status && typeof b.lastTransitionTime === 'string' && b.lastTransitionTime !== '');
      c.lastTransitionTime = same ? same.lastTransitionTime : now;
    }
  }
}

/** preserveConditionInstances: the same number of conditions of this type as before → the old ones, in place. */
function preserveConditions(o: KubeObject, old: KubeObject, type: string): void {
  const before = conditionsOf(old).filter((c) => c.type === type);
  const list = statusObj(o).conditions;
  if (!Array.isArray(list)) return;
  const at = list.flatMap((c: unknown, i) => (isRecord(c) && c.type === type ? [i] : []));
  if (at.length !== before.length) return; // added or removed: validation refuses it
  at.forEach((i, n) => (list[i] = structuredClone(before[n])));
}

function prepareForStatusUpdate(o: KubeObject, old: KubeObject): void {
  preserveConditions(o, old, 'Approved');
  preserveConditions(o, old, 'Denied');
  // Kubernetes reads the wall clock here too (metav1.Now()); nothing waits on these stamps.
  populateConditionTimestamps(o, old, Date.now());
}

/** /approval: only status.conditions come from the request. */
function prepareForApprovalUpdate(o: KubeObject, old: KubeObject): void {
  populateConditionTimestamps(o, old, Date.now());
  const conditions = isRecord(o.status) ? o.status.conditions : undefined;
  o.spec = structuredClone(old.spec);
  const status: Obj = isRecord(old.status) ? structuredClone(old.status) : {};
  if (conditions === undefined || conditions === null) delete status.conditions;
  else status.conditions = conditions;
  o.status = status;
}

export const certificateSigningRequestStrategy = buildStrategy(R.certificatesigningrequests, {
  // Users cannot create pre-approved requests: status starts empty (Go writes `status: {}`).
  status: { initial: () => ({}) },
  prepareForCreate: recordRequester,
  prepareForUpdate(o, old) {
    o.spec = structuredClone(old.spec);
  },
  prepareForStatusUpdate,
  validate: validateCsrCreate,
  validateUpdate: validateCsrUpdate,
  validateStatusUpdate: validateCsrStatusUpdate,
  subresourceUpdates: { approval: { prepareForUpdate: prepareForApprovalUpdate, validateUpdate: validateCsrApprovalUpdate } },
});
