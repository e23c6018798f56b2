// The resources served right now: the built-in table plus the custom resources of established
// CustomResourceDefinitions, which an apiserver's watch cache adds and removes as it sees CRDs change (each
// replica follows them through its own watch). Routing and discovery read this; code that needs a particular
// built-in resource keeps using R.
import { RESOURCES, type ResourceInfo } from './resources.ts';

/** Custom resources by "<plural>.<group>", one entry per served version. */
const custom = new Map<string, readonly ResourceInfo[]>();
let all: readonly ResourceInfo[] = RESOURCES;
let byPath = new Map<string, ResourceInfo>();
let listeners: (() => void)[] = [];

function rebuild(): void {
  all = custom.size === 0 ? RESOURCES : [...RESOURCES, ...[...custom.values()].flat()];
  byPath = new Map(all.map((r) => [`${r.group}/${r.version}/${r.plural}`, r]));
  for (const f of listeners) f();
}
rebuild();

export function servedResources(): readonly ResourceInfo[] {
  return all;
}

export function findServedResource(group: string, version: string, plural: string): ResourceInfo | undefined {
  return byPath.get(`${group}/${version}/${plural}`);
}

/** Serve (or stop serving, with an empty list) the versions of one custom resource. */
export function setCustomResource(qualified: string, versions: readonly ResourceInfo[]): void {
  if (versions.length === 0) {
    if (!custom.delete(qualified)) return;
  } else custom.set(qualified, versions);
  rebuild();
}

export function customResourceVersions(qualified: string): readonly ResourceInfo[] {
  return custom.get(qualified) ?? [];
}

/** Called after every change of the served set (caches keyed on it rebuild). */
export function onServedResourcesChange(f: () => void): () => void {
  listeners.push(f);
  return () => {
    listeners = listeners.filter((x) => x !== f);
  };
}

/**
 * Serve in discovery the resources an aggregated API server reports for one "<group>/<version>" (the
 * apiserver's aggregator proxies their requests); an empty list stops. Kept beside the custom resources.
 */
export function setAggregatedResources(groupVersion: string, resources: readonly ResourceInfo[]): void {
  setCustomResource(`${groupVersion}${AGGREGATED_SUFFIX}`, resources);
}

const AGGREGATED_SUFFIX = ' (aggregated)';

/** Whether "<group>/<version>" is served by an aggregated API server (its OpenAPI comes from there). */
export function isAggregatedGroupVersion(groupVersion: string): boolean {
  return custom.has(`${groupVersion}${AGGREGATED_SUFFIX}`);
}
