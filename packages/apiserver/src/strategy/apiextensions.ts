// Strategy of customresourcedefinitions (k8s.io/apiextensions-apiserver pkg/registry/customresourcedefinition):
// v1 defaults (singular, listKind, conversion None, service port 443), generation, status/storedVersions
// holding every storage version ever used. A new CRD's status has no accepted names and no conditions, as in
// Kubernetes: the naming controller (crd/naming-controller.ts) accepts its names and the establishing step then
// marks it Established, which is when it is served; the conditions those write are built here.
import { formatTime, R } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import type { NamingResult } from '../crd/naming.ts';
import { asArray, asRecord, asString, isRecord } from '../validation/field.ts';
import {
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionStatus,
  validateCustomResourceDefinitionUpdate,
} from '../validation/apiextensions.ts';

type Obj = Record<string, unknown>;

export function defaultCustomResourceDefinition(crd: KubeObject): void {
  const spec = asRecord(crd.spec);
  if (!spec) return;
  const names = asRecord(spec.names);
  if (names) {
    const kind = asString(names.kind);
    if (kind && !names.singular) names.singular = kind.toLowerCase();
    if (kind && !names.listKind) names.listKind = `${kind}List`;
  }
  if (!isRecord(spec.conversion)) spec.conversion = { strategy: 'None' };
  const conv = spec.conversion as Obj;
  if (!conv.strategy) conv.strategy = 'None';
  const svc = asRecord(asRecord(asRecord(conv.webhook)?.clientConfig)?.service);
  if (svc && svc.port === undefined) svc.port = 443;
  if (spec.preserveUnknownFields === undefined) spec.preserveUnknownFields = false;
}

/** The version objects are stored in, if exactly one is marked. */
export function storageVersion(crd: KubeObject): string | undefined {
  const versions = (asArray(asRecord(crd.spec)?.versions) ?? []).filter(isRecord);
  const storage = versions.filter((v) => v.storage === true);
  return storage.length === 1 ? asString(storage[0]!.name) : undefined;
}

type Condition = { type: string; status: string; reason: string; message: string };

/** Sets a condition, keeping its transition time when its status did not change (SetCRDCondition). */
export function setCondition(crd: KubeObject, c: Condition, now: string): void {
  const status = (asRecord(crd.status) ?? {}) as Obj;
  crd.status = status;
  const conds = (asArray(status.conditions) ?? []).filter(isRecord);
  const prev = conds.find((o) => o.type === c.type);
  const next = { type: c.type, status: c.status, lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now, reason: c.reason, message: c.message };
  status.conditions = prev ? conds.map((o) => (o === prev ? next : o)) : [...conds, next];
}

export function conditionOf(crd: KubeObject, type: string): Obj | undefined {
  return (asArray(asRecord(crd.status)?.conditions) ?? []).filter(isRecord).find((c) => c.type === type);
}

/**
 * Writes a naming decision as the naming controller does: the accepted names, NamesAccepted, and Established
 * False — `NotAccepted` until the names are accepted, `Installing` once they are — unless it is already True
 * (an Established CRD stays so when a later names change is refused).
 */
export function applyNaming(crd: KubeObject, naming: NamingResult): void {
  const status = (asRecord(crd.status) ?? {}) as Obj;
  crd.status = status;
  status.acceptedNames = naming.acceptedNames;
  const now = formatTime(Date.now());
  setCondition(crd, { type: 'NamesAccepted', status: naming.status, reason: naming.reason, message: naming.message }, now);
  const established = conditionOf(crd, 'Established');
  if (established?.status === 'True') return;
  if (naming.status === 'True') setCondition(crd, { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' }, now);
  else if (!established) setCondition(crd, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
}

/** The establishing controller's step: a CRD whose names are accepted becomes Established (and is served). */
export function establish(crd: KubeObject): void {
  setCondition(crd, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, formatTime(Date.now()));
}

/** Whether the establishing step is due: names accepted, not Established, not being deleted. */
export function establishingDue(crd: KubeObject): boolean {
  return !crd.metadata.deletionTimestamp && conditionOf(crd, 'NamesAccepted')?.status === 'True' && conditionOf(crd, 'Established')?.status !== 'True';
}

function addStoredVersion(crd: KubeObject): void {
  const v = storageVersion(crd);
  if (!v) return;
  const status = (asRecord(crd.status) ?? {}) as Obj;
  crd.status = status;
  const stored = (asArray(status.storedVersions) ?? []).map(String);
  if (!stored.includes(v)) stored.push(v);
  status.storedVersions = stored;
}

export const customResourceDefinitionStrategy = buildStrategy(R.customresourcedefinitions, {
  defaults: defaultCustomResourceDefinition,
  validate: validateCustomResourceDefinition,
  validateUpdate: validateCustomResourceDefinitionUpdate,
  validateStatusUpdate: validateCustomResourceDefinitionStatus,
  status: { initial: () => ({}) },
  generation: true,
  prepareForCreate(crd) {
    // Nothing is accepted yet: the naming controller decides (Kubernetes' create answer shows the same).
    crd.status = { acceptedNames: { plural: '', kind: '' } };
    addStoredVersion(crd);
  },
  prepareForUpdate(crd) {
    addStoredVersion(crd);
  },
});
