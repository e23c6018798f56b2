// The names a CRD gets (apiextensions-apiserver's NamingConditionController): each requested name is accepted
// when it is already this CRD's accepted name or no other CRD of the group holds it (plural, singular and short
// names among the resources' names, kind and listKind among the kinds); a name held elsewhere keeps the
// previously accepted one and sets NamesAccepted False with `PluralConflict`, `SingularConflict`,
// `ShortNamesConflict`, `KindConflict` or `ListKindConflict` and `"<name>" is already in use`. Established
// stays as it was, or is False `NotAccepted` until the names are accepted; kemu then establishes at once
// (Kubernetes' establishing controller follows within moments).
import type { KubeObject } from '@kemu/api';
import { asArray, asRecord, asString } from '../validation/field.ts';

type Obj = Record<string, unknown>;

export interface NamingResult {
  acceptedNames: Obj;
  /** NamesAccepted's status, reason and message. */
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** The names other CRDs of a group have accepted: resources (plural, singular, short names) and kinds. */
export function namesInUse(crds: Iterable<KubeObject>, group: string, except: string): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const c of crds) {
    if (c.metadata.name === except || asRecord(c.spec)?.group !== group) continue;
    const a = asRecord(asRecord(c.status)?.acceptedNames) ?? {};
    for (const n of [a.plural, a.singular, ...(asArray(a.shortNames) ?? [])]) if (typeof n === 'string' && n !== '') resources.add(n);
    for (const n of [a.kind, a.listKind]) if (typeof n === 'string' && n !== '') kinds.add(n);
  }
  return { resources, kinds };
}

const inUse = (requested: string, accepted: string, used: Set<string>): string | undefined =>
  requested === accepted || !used.has(requested) ? undefined : `${JSON.stringify(requested)} is already in use`;

export function calculateNames(crd: KubeObject, used: { resources: Set<string>; kinds: Set<string> }): NamingResult {
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
