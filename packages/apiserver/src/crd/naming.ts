// The names a CRD gets (apiextensions-apiserver's NamingConditionController): each requested name is accepted
// when it is already this CRD's accepted name or no other CRD of the group holds it (plural, singular and short
// names among the resources' names, kind and listKind among the kinds); a name held elsewhere keeps the
// previously accepted one and sets NamesAccepted False with `PluralConflict`, `SingularConflict`,
// `ShortNamesConflict`, `KindConflict` or `ListKindConflict` and `"<name>" is already in use`.
//
// Every apiserver replica decides (crd/naming-controller.ts), each from its own watch cache, so the rule must give
// one answer whatever the replica saw: besides the names other CRDs have accepted, the names requested by other
// CRDs still waiting for a decision that are older in the store's log (a lower resourceVersion) count as held.
// A cache is a prefix of the log and a decision is written only if the CRD did not change since the snapshot it
// was made from, so of two CRDs created at once through two replicas claiming a name, the first created gets it
// on every replica, the other one `... is already in use`.
import type { KubeObject } from '@kemu/api';
import { asArray, asRecord, asString, jsonEqual } from '../validation/field.ts';

type Obj = Record<string, unknown>;

export interface NamingResult {
  acceptedNames: Obj;
  /** NamesAccepted's status, reason and message. */
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface NamesInUse {
  resources: Set<string>;
  kinds: Set<string>;
}

/** Whether the CRD waits for a naming decision: its spec.names are not (yet) its accepted names. */
export function namesPending(crd: KubeObject): boolean {
  return !jsonEqual(asRecord(asRecord(crd.spec)?.names), asRecord(asRecord(crd.status)?.acceptedNames));
}

/** Log order of two objects' resourceVersions (numeric in kemu's stores; other text compares as text). */
function olderThan(a: KubeObject, b: KubeObject): boolean {
  const ra = a.metadata.resourceVersion ?? '';
  const rb = b.metadata.resourceVersion ?? '';
  if (/^\d+$/.test(ra) && /^\d+$/.test(rb)) return BigInt(ra) < BigInt(rb);
  return ra < rb;
}

function addNames(n: Obj, to: NamesInUse): void {
  for (const v of [n.plural, n.singular, ...(asArray(n.shortNames) ?? [])]) if (typeof v === 'string' && v !== '') to.resources.add(v);
  for (const v of [n.kind, n.listKind]) if (typeof v === 'string' && v !== '') to.kinds.add(v);
}

/**
 * The names other CRDs of self's group hold: those they have accepted, and those requested by the ones still
 * waiting for a decision that came before self in the log (deleting CRDs claim nothing new).
 */
export function namesInUse(crds: Iterable<KubeObject>, self: KubeObject): NamesInUse {
  const group = asRecord(self.spec)?.group;
  const used: NamesInUse = { resources: new Set(), kinds: new Set() };
  for (const c of crds) {
    if (c.metadata.name === self.metadata.name || asRecord(c.spec)?.group !== group) continue;
    addNames(asRecord(asRecord(c.status)?.acceptedNames) ?? {}, used);
    if (!c.metadata.deletionTimestamp && namesPending(c) && olderThan(c, self)) addNames(asRecord(asRecord(c.spec)?.names) ?? {}, used);
  }
  return used;
}

const inUse = (requested: string, accepted: string, used: Set<string>): string | undefined =>
  requested === accepted || !used.has(requested) ? undefined : `${JSON.stringify(requested)} is already in use`;

export function calculateNames(crd: KubeObject, used: NamesInUse): NamingResult {
  const requested = asRecord(asRecord(crd.spec)?.names) ?? {};
  const accepted = asRecord(asRecord(crd.status)?.acceptedNames) ?? {};
  const out: Obj = { plural: asString(accepted.plural) ?? '', kind: asString(accepted.kind) ?? '' };
  for (const k of ['singular', 'shortNames', 'listKind', 'categories']) if (accepted[k] !== undefined) out[k] = accepted[k];
  let conflict: { reason: string; message: string } | undefined;
  const one = (field: string, reason: string, used: Set<string>) => {
    const want = asString(requested[field]) ?? '';
    const err = inUse(want, asString(accepted[field]) ?? '', used);
    if (err) conflict = { reason, message: err };
    else if (want !== '' || field === 'plural' || field === 'kind') out[field] = want;
  };
  one('plural', 'PluralConflict', used.resources);
  one('singular', 'SingularConflict', used.resources);
  const wantShort = (asArray(requested.shortNames) ?? []).map(String);
  const haveShort = new Set((asArray(accepted.shortNames) ?? []).map(String));
  if (JSON.stringify(wantShort) !== JSON.stringify([...haveShort])) {
    const errs = wantShort.filter((s) => !haveShort.has(s)).flatMap((s) => inUse(s, '', used.resources) ?? []);
    if (errs.length > 0) conflict = { reason: 'ShortNamesConflict', message: errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]` };
    else if (wantShort.length > 0) out.shortNames = wantShort;
    else delete out.shortNames;
  }
  one('kind', 'KindConflict', used.kinds);
  one('listKind', 'ListKindConflict', used.kinds);
  if (requested.categories !== undefined) out.categories = requested.categories;
  else delete out.categories;
  if (conflict) return { acceptedNames: out, status: 'False', ...conflict };
  return { acceptedNames: out, status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
}
