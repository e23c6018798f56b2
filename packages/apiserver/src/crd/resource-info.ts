// What a CustomResourceDefinition serves, as resource-table entries: its accepted names, scope and
// subresources, once Established (Kubernetes serves a CRD only then), one entry per served version. Objects
// are stored in the storage version (which need not be served); the other versions are views converted
// from it (crd/versions.ts).
import type { KubeObject, ResourceInfo, SubresourceInfo, Verb } from '@kemu/api';
import { asArray, asRecord, asString, isRecord } from '../validation/field.ts';
import { isEstablished } from '../validation/apiextensions.ts';

const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUB_VERBS: readonly Verb[] = ['get', 'patch', 'update'];

/** The entry of every version of an Established CRD (served or not), in spec order; empty otherwise. */
export function customResourceVersionInfos(crd: KubeObject): { info: ResourceInfo; served: boolean; storage: boolean }[] {
  if (!isEstablished(crd)) return [];
  const spec = asRecord(crd.spec) ?? {};
  const names = asRecord(asRecord(crd.status)?.acceptedNames) ?? asRecord(spec.names) ?? {};
  const group = asString(spec.group);
  const plural = asString(names.plural);
  const kind = asString(names.kind);
  if (!group || !plural || !kind) return [];
  return (asArray(spec.versions) ?? []).filter(isRecord).map((v) => {
    const version = asString(v.name) ?? '';
    const subs = asRecord(v.subresources) ?? {};
    const subresources: SubresourceInfo[] = [];
    if (isRecord(subs.status)) subresources.push({ name: 'status', group, version, kind, verbs: SUB_VERBS });
    if (isRecord(subs.scale)) subresources.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: SUB_VERBS });
    const info: ResourceInfo = {
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
    return { info, served: v.served === true, storage: v.storage === true };
  });
}

/** The served versions' entries; empty while the CRD is not Established. */
export function customResourceInfos(crd: KubeObject): ResourceInfo[] {
  return customResourceVersionInfos(crd)
    .filter((v) => v.served)
    .map((v) => v.info);
}

/** The storage version's entry (its keys and stored form); undefined while the CRD is not Established. */
export function customStorageInfo(crd: KubeObject): ResourceInfo | undefined {
  return customResourceVersionInfos(crd).find((v) => v.storage)?.info;
}
