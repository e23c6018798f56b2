// The order of groups and versions in discovery, as kube-aggregator sorts APIServices (SortedByGroupAndVersion):
// every group-version by groupPriorityMinimum (descending) then APIService name ("<version>.<group>"), a group
// placed where its first group-version falls; within a group, versions by versionPriority (descending) then in
// Kubernetes' version order (v2, v1, v1beta1, v1alpha1, then others) — the first is the preferred version.
import { compareKubeAwareVersions } from './crd/version-priority.ts';

/** [groupPriorityMinimum, versionPriority] of a group-version (its APIService's). */
export type PriorityOf = (group: string, version: string) => readonly [number, number];

export interface OrderedGroup {
  name: string;
  versions: string[];
}

export function orderGroups(groupVersions: readonly { group: string; version: string }[], priorityOf: PriorityOf): OrderedGroup[] {
  const entries = groupVersions.map(({ group, version }) => {
    const [gpm, vp] = priorityOf(group, version);
    return { group, version, gpm, vp, name: `${version}.${group}` };
  });
  entries.sort((a, b) => (a.gpm !== b.gpm ? b.gpm - a.gpm : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: { name: string; entries: typeof entries }[] = [];
  for (const e of entries) {
    const g = out.find((x) => x.name === e.group);
    if (g) g.entries.push(e);
    else out.push({ name: e.group, entries: [e] });
  }
  return out.map((g) => ({
    name: g.name,
    versions: g.entries.sort((a, b) => (a.vp !== b.vp ? b.vp - a.vp : compareKubeAwareVersions(b.version, a.version))).map((e) => e.version),
  }));
}
