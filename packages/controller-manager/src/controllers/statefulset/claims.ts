// Who owns a StatefulSet pod's claims under persistentVolumeClaimRetentionPolicy (stateful_set_utils.go's
// isClaimOwnerUpToDate / updateClaimOwnerRefForSetAndPod): controller references, so the garbage collector
// deletes the claims with their owner.
//   Retain on scale-down and set deletion: no reference of ours
//   Retain on scale-down, Delete with the set: the set
//   Delete on scale-down, Retain with the set: the pod, once it is scaled down
//   Delete on both: the set while the pod is in range, the pod once it is scaled down
// A claim another controller owns keeps that owner and loses ours; a reference to an earlier object of the same
// name (another uid) marks the claim stale and it is left alone.
import type { KubeObject, OwnerReference, Pod, StatefulSet } from '@kemu/api';

const SET = { apiVersion: 'apps/v1', kind: 'StatefulSet' } as const;
const POD = { apiVersion: 'v1', kind: 'Pod' } as const;
type Kind = typeof SET | typeof POD;

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');
const uid = (o: KubeObject) => o.metadata.uid ?? '';

/** matchesRef: the same kind, group and name (any uid). */
const matchesRef = (ref: OwnerReference, obj: KubeObject, k: Kind) => ref.kind === k.kind && ref.name === obj.metadata.name && groupOf(ref.apiVersion) === groupOf(k.apiVersion);
const hasOwnerRef = (claim: KubeObject, owner: KubeObject) => (claim.metadata.ownerReferences ?? []).some((r) => r.uid === uid(owner));

/** hasStaleOwnerRef: a reference to an object of this name but another uid (a pod not created yet has none). */
export function hasStaleOwnerRef(claim: KubeObject, obj: KubeObject, k: Kind = POD): boolean {
  const ref = (claim.metadata.ownerReferences ?? []).find((r) => matchesRef(r, obj, k));
  return ref !== undefined && ref.uid !== uid(obj);
}

const hasUnexpectedController = (claim: KubeObject, set: StatefulSet, pod: Pod) =>
  (claim.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid !== uid(set) && r.uid !== uid(pod));
const hasNonControllerOwner = (claim: KubeObject, set: StatefulSet, pod: Pod) =>
  (claim.metadata.ownerReferences ?? []).some((r) => (r.uid === uid(set) || r.uid === uid(pod)) && r.controller !== true);

function policyOf(set: StatefulSet): { deleteWithSet: boolean; deleteOnScale: boolean } {
  const p = set.spec.persistentVolumeClaimRetentionPolicy;
  return { deleteWithSet: p?.whenDeleted === 'Delete', deleteOnScale: p?.whenScaled === 'Delete' };
}

/** isClaimOwnerUpToDate; scaledDown: the pod's ordinal is outside the set's range. */
export function claimOwnerUpToDate(claim: KubeObject, set: StatefulSet, pod: Pod, scaledDown: boolean): boolean {
  if (hasStaleOwnerRef(claim, set, SET) || hasStaleOwnerRef(claim, pod, POD)) return true;
  if (hasUnexpectedController(claim, set, pod)) return !hasOwnerRef(claim, set) && !hasOwnerRef(claim, pod);
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const want = wantedOwners(set, scaledDown);
  return hasOwnerRef(claim, set) === want.set && hasOwnerRef(claim, pod) === want.pod;
}

function wantedOwners(set: StatefulSet, scaledDown: boolean): { set: boolean; pod: boolean } {
  const { deleteWithSet, deleteOnScale } = policyOf(set);
  if (deleteOnScale && scaledDown) return { set: false, pod: true };
  return { set: deleteWithSet, pod: false };
}

const controllerRefTo = (owner: KubeObject, k: Kind): OwnerReference => ({
  apiVersion: k.apiVersion,
  kind: k.kind,
  name: owner.metadata.name ?? '',
  uid: uid(owner),
  controller: true,
  blockOwnerDeletion: true,
});

/** updateClaimOwnerRefForSetAndPod: the claim's owner references as the policy wants them. */
export function claimOwnerRefs(claim: KubeObject, set: StatefulSet, pod: Pod, scaledDown: boolean): OwnerReference[] {
  const unexpected = hasUnexpectedController(claim, set, pod);
  const refs = (claim.metadata.ownerReferences ?? []).filter((r) => !matchesRef(r, set, SET) && !matchesRef(r, pod, POD));
  if (unexpected) return refs;
  const want = wantedOwners(set, scaledDown);
  if (want.pod) refs.push(controllerRefTo(pod, POD));
  if (want.set) refs.push(controllerRefTo(set, SET));
  return refs;
}
