// The CustomResourceDefinition behind each served custom resource, as the watch cache last saw it: its
// storage version's schema, printer columns and subresources drive the custom resources' strategy.
import { qualifiedResource, type KubeObject, type ResourceInfo } from '@kemu/api';
import { asArray, asRecord, isRecord } from '../validation/field.ts';

const definitions = new Map<string, KubeObject>();
/** Every CRD the watch cache holds, established or not, by name (the naming check reads their accepted names). */
const known = new Map<string, KubeObject>();

export function setKnownDefinition(name: string, crd: KubeObject | undefined): void {
  if (crd) known.set(name, crd);
  else known.delete(name);
}

export function knownDefinitions(): Iterable<KubeObject> {
  return known.values();
}

export function setDefinition(qualified: string, crd: KubeObject | undefined): void {
  if (crd) definitions.set(qualified, crd);
  else definitions.delete(qualified);
}

export function definitionOf(r: ResourceInfo): KubeObject | undefined {
  return definitions.get(qualifiedResource(r));
}

/** The CRD's spec.versions entries. */
export function versionsOf(crd: KubeObject | undefined): Record<string, unknown>[] {
  return (asArray(asRecord(crd?.spec)?.versions) ?? []).filter(isRecord);
}

/** The CRD's entry in spec.versions for the served version of r. */
export function versionOf(r: ResourceInfo): Record<string, unknown> | undefined {
  return versionsOf(definitionOf(r)).find((v) => v.name === r.version);
}

/** The CRD serving group/kind (by its accepted names), for decoding a body by its apiVersion and kind. */
export function definitionOfKind(group: string, kind: string): KubeObject | undefined {
  for (const crd of definitions.values()) {
    const spec = asRecord(crd.spec);
    const names = asRecord(asRecord(crd.status)?.acceptedNames) ?? asRecord(spec?.names);
    if (spec?.group === group && names?.kind === kind) return crd;
  }
  return undefined;
}
