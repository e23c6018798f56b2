// What a CustomResourceDefinition serves, as resource-table entries: its accepted names, scope and
// subresources, once Established (Kubernetes serves a CRD only then). Only the storage version is served
// for now: several versions need conversion between them on every read.
import type { KubeObject, ResourceInfo, SubresourceInfo, Verb } from '@kemu/api';
import { asArray, asRecord, asString, isRecord } from '../validation/field.ts';
import { isEstablished } from '../validation/apiextensions.ts';

const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUB_VERBS: readonly Verb[] = ['get', 'patch', 'update'];

/** The served versions' entries; empty while the CRD is not Established. */
export function customResourceInfos(crd: KubeObject): ResourceInfo[] {
  if (!isEstablished(crd)) return [];
  const spec = asRecord(crd.spec) ?? {};
  const names = asRecord(asRecord(crd.status)?.acceptedNames) ?? asRecord(spec.names) ?? {};
  const group = asString(spec.group);
  const plural = asString(names.plural);
  const kind = asString(names.kind);
  if (!group || !plural || !kind) return [];
  const versions = (asArray(spec.versions) ?? []).filter(isRecord).filter((v) => v.served === true && v.storage === true);
  return versions.map((v): ResourceInfo => {
    const version = asString(v.name) ?? '';
    const subs = asRecord(v.subresources) ?? {};
    const subresources: SubresourceInfo[] = [];
    if (isRecord(subs.status)) subresources.push({ name: 'status', group, version, kind, verbs: SUB_VERBS });
    if (isRecord(subs.scale)) subresources.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: SUB_VERBS });
    return {
      group,
      version,
      kind,
      listKind: asString(names.listKind) ?? `${kind}List`,
      plural,
      singular: asString(names.singular) ?? kind.toLowerCase(),
      namespaced: spec.scope === 'Namespaced',
      shortNames: (asArray(names.shortNames) ?? []).map(String),
      categories: (asArray(names.categories) ?? []).map(String),
      verbs: ALL_VERBS,
      subresources,
    };
  });
}
