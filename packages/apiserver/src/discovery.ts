// Discovery documents built from the resource table: aggregated (apidiscovery.k8s.io/v2, what kubectl
// asks for first) and legacy (APIVersions, APIGroupList, APIGroup, APIResourceList). Groups and versions are
// ordered by their APIServices' priorities (discovery-order.ts).
import { groupVersion, servedResources, type ResourceInfo } from '@kemu/api';
import { orderGroups, type OrderedGroup, type PriorityOf } from './discovery-order.ts';

/** The served resources (built-in and custom). */
const served = (): readonly ResourceInfo[] => servedResources();

export const AGGREGATED_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

export function wantsAggregated(accept: string | undefined): boolean {
  if (!accept) return false;
  // Honour the client's order: the first acceptable entry wins.
  for (const part of accept.split(',')) {
    const p = part.replace(/\s+/g, '');
    if (p.includes('as=APIGroupDiscoveryList') && p.includes('g=apidiscovery.k8s.io') && p.includes('v=v2') && !p.includes('v=v2beta1')) return true;
    if (p.startsWith('application/json') && !p.includes('as=')) return false;
    if (p.startsWith('*/*')) return false;
  }
  return false;
}

function groups(priorityOf: PriorityOf): OrderedGroup[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of served()) if (r.group !== '') seen.set(`${r.group}/${r.version}`, { group: r.group, version: r.version });
  return orderGroups([...seen.values()], priorityOf);
}

function resourcesOf(group: string, version: string): ResourceInfo[] {
  return served().filter((r) => r.group === group && r.version === version);
}

function aggregatedResource(r: ResourceInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {
    resource: r.plural,
    responseKind: { group: r.group, version: r.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: [...r.verbs],
  };
  if (r.shortNames.length) out.shortNames = [...r.shortNames];
  if (r.categories.length) out.categories = [...r.categories];
  if (r.subresources.length) {
    out.subresources = r.subresources.map((s) => ({
      subresource: s.name,
      responseKind: { group: s.group, version: s.version, kind: s.kind },
      verbs: [...s.verbs],
    }));
  }
  return out;
}

function aggregatedGroup(name: string, versions: string[]): Record<string, unknown> {
  return {
    metadata: { name, creationTimestamp: null },
    versions: versions.map((v) => ({ version: v, resources: resourcesOf(name, v).map(aggregatedResource), freshness: 'Current' })),
  };
}

export function aggregatedDiscovery(prefix: 'api' | 'apis', priorityOf: PriorityOf): Record<string, unknown> {
  const items = prefix === 'api' ? [aggregatedGroup('', ['v1'])] : groups(priorityOf).map((g) => aggregatedGroup(g.name, g.versions));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function apiGroup(name: string, versions: string[]): Record<string, unknown> {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(priorityOf: PriorityOf): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups(priorityOf).map((g) => apiGroup(g.name, g.versions)) };
}

export function apiGroupDoc(group: string, priorityOf: PriorityOf): Record<string, unknown> | undefined {
  const g = groups(priorityOf).find((x) => x.name === group);
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g.name, g.versions) } : undefined;
}

export function apiResourceList(group: string, version: string): Record<string, unknown> {
  const resources: Record<string, unknown>[] = [];
  for (const r of resourcesOf(group, version)) {
    const e: Record<string, unknown> = { name: r.plural, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: [...r.verbs] };
    if (r.shortNames.length) e.shortNames = [...r.shortNames];
    if (r.categories.length) e.categories = [...r.categories];
    resources.push(e);
    for (const s of r.subresources) {
      const se: Record<string, unknown> = { name: `${r.plural}/${s.name}`, singularName: '', namespaced: r.namespaced, kind: s.kind, verbs: [...s.verbs] };
      if (s.group !== r.group || s.version !== r.version) {
        se.group = s.group;
        se.version = s.version;
      }
      resources.push(se);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion({ group, version }), resources };
}
