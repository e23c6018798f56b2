// The resources of aggregated API servers, from the APIResourceList each serves at /apis/<group>/<version>
// (fetched by the availability check), turned into resource table entries so /apis, /apis/<group> and
// aggregated discovery list them beside the local ones (kube-aggregator's discovery merge).
import { setAggregatedResources, type ResourceInfo, type SubresourceInfo, type Verb } from '@kemu/api';
import { asArray, asRecord, asString, isRecord } from '../validation/field.ts';

const VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUBRESOURCES: readonly SubresourceInfo['name'][] = ['status', 'scale', 'binding', 'eviction', 'log', 'finalize', 'ephemeralcontainers', 'token', 'approval', 'exec', 'attach', 'portforward', 'proxy'];

const strings = (v: unknown): string[] => (asArray(v) ?? []).filter((x): x is string => typeof x === 'string');
const verbs = (v: unknown): Verb[] => strings(v).filter((x): x is Verb => (VERBS as readonly string[]).includes(x));

/** An APIResourceList's entries as resource table rows (subresources folded into their resource). */
export function resourcesOfList(group: string, version: string, list: unknown): ResourceInfo[] {
  const entries = (asArray(asRecord(list)?.resources) ?? []).filter(isRecord);
  const out: ResourceInfo[] = [];
  for (const e of entries) {
    const name = asString(e.name) ?? '';
    const kind = asString(e.kind) ?? '';
    if (name === '' || kind === '' || name.includes('/')) continue;
    out.push({
      group,
      version,
      kind,
      listKind: `${kind}List`,
      plural: name,
      singular: asString(e.singularName) || kind.toLowerCase(),
      namespaced: e.namespaced === true,
      shortNames: strings(e.shortNames),
      categories: strings(e.categories),
      verbs: verbs(e.verbs),
      subresources: [],
    });
  }
  for (const e of entries) {
    const [plural, sub] = (asString(e.name) ?? '').split('/');
    const r = out.find((x) => x.plural === plural);
    if (!r || !sub || !(SUBRESOURCES as readonly string[]).includes(sub)) continue;
    const s: SubresourceInfo = { name: sub as SubresourceInfo['name'], group: asString(e.group) || group, version: asString(e.version) || version, kind: asString(e.kind) ?? '', verbs: verbs(e.verbs) };
    (r.subresources as SubresourceInfo[]).push(s);
  }
  return out;
}

/** What each aggregated group/version serves, as last fetched. */
export class AggregatedDiscovery {
  private readonly served = new Map<string, string>();

  /** Sets the resources of "<group>/<version>" (unchanged lists cause no rebuild). */
  set(group: string, version: string, resources: ResourceInfo[]): void {
    const gv = `${group}/${version}`;
    const text = JSON.stringify(resources);
    if (this.served.get(gv) === text) return;
    this.served.set(gv, text);
    setAggregatedResources(gv, resources);
  }

  has(group: string, version: string): boolean {
    return this.served.has(`${group}/${version}`);
  }

  /** Stops serving every group/version not in `keep` ("<group>/<version>"). */
  retain(keep: ReadonlySet<string>): void {
    for (const gv of [...this.served.keys()]) {
      if (keep.has(gv)) continue;
      this.served.delete(gv);
      setAggregatedResources(gv, []);
    }
  }

  /** The group/versions served from aggregated servers, "<group>/<version>". */
  groupVersions(): ReadonlySet<string> {
    return new Set(this.served.keys());
  }
}
