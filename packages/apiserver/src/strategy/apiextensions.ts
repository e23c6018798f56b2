// Strategy of customresourcedefinitions (k8s.io/apiextensions-apiserver pkg/registry/customresourcedefinition):
// v1 defaults (singular, listKind, conversion None, service port 443), generation, status/storedVersions
// holding every storage version ever used, and the conditions Kubernetes' naming and establishing
// controllers write: the names in spec are accepted unless another CRD of the group holds them (crd/naming.ts),
// and the resource is then served (Established).
import { formatTime, R } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { knownDefinitions } from '../crd/definitions.ts';
import { calculateNames, namesInUse } from '../crd/naming.ts';
import { asArray, asRecord, asString, isRecord, jsonEqual } from '../validation/field.ts';
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

function condition(type: string, reason: string, message: string, now: string): Obj {
  return { type, status: 'True', lastTransitionTime: now, reason, message };
}

/**
 * Accept spec.names as far as no other CRD of the group holds them (crd/naming.ts), and mark the resource
 * Established once they are, keeping an unchanged condition's transition time.
 */
export function acceptNames(crd: KubeObject, old: KubeObject | undefined): void {
  const status = (asRecord(crd.status) ?? {}) as Obj;
  crd.status = status;
  const group = asString(asRecord(crd.spec)?.group) ?? '';
  const naming = calculateNames(crd, namesInUse(knownDefinitions(), group, crd.metadata.name ?? ''));
  status.acceptedNames = naming.acceptedNames;
  const now = formatTime(Date.now());
  const oldConds = (asArray(asRecord(old?.status)?.conditions) ?? []).filter(isRecord);
  const keep = (c: Obj): Obj => {
    const prev = oldConds.find((o) => o.type === c.type);
    return prev && prev.status === c.status && prev.reason === c.reason ? { ...c, lastTransitionTime: prev.lastTransitionTime } : c;
  };
  const conds = (asArray(status.conditions) ?? []).filter(isRecord);
  const others = conds.filter((c) => c.type !== 'NamesAccepted' && c.type !== 'Established');
  const namesAccepted = { type: 'NamesAccepted', status: naming.status, lastTransitionTime: now, reason: naming.reason, message: naming.message };
  const was = conds.find((c) => c.type === 'Established');
  const established =
    naming.status === 'True'
      ? condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted', now)
      : (was ?? { type: 'Established', status: 'False', lastTransitionTime: now, reason: 'NotAccepted', message: 'not all names are accepted' });
  status.conditions = [keep(namesAccepted), keep(established), ...others];
}

/** Whether spec.names differ from the accepted names (the naming check runs again then). */
export function namesPending(crd: KubeObject): boolean {
  return !jsonEqual(asRecord(crd.spec)?.names, asRecord(asRecord(crd.status)?.acceptedNames));
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
    addStoredVersion(crd);
    acceptNames(crd, undefined);
  },
  prepareForUpdate(crd, old) {
    addStoredVersion(crd);
    if (namesPending(crd)) acceptNames(crd, old);
  },
});
