// Where a scaleTargetRef's /scale lives when its kind is not a built-in one (a custom resource with a scale
// subresource): found through discovery as Kubernetes' RESTMapper does — the group's versions, preferred first,
// and in each the resource of that kind that lists `<plural>/scale`. Answers are kept per group and kind until a
// request through them fails, as the deferred discovery mapper resets on a miss.
import { RESOURCES, StatusError, resourceInfo, type CrossVersionObjectReference, type ResourceInfo } from '@kemu/api';
import type { RestClient } from '@kemu/client';

type Discovery = Pick<RestClient, 'raw'>;
type Fields = Record<string, unknown>;
const rec = (v: unknown): Fields => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Fields) : {});
const recs = (v: unknown): Fields[] => (Array.isArray(v) ? v.map(rec) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

async function getJSON(client: Discovery, path: string): Promise<Fields | undefined> {
  const res = await client.raw('GET', path);
  if (res.status === 404) return undefined;
  if (res.status < 200 || res.status > 299) throw new StatusError('InternalError', `unable to retrieve the complete list of server APIs: ${path}: ${res.status}`);
  try {
    return rec(JSON.parse(res.body));
  } catch {
    throw new StatusError('InternalError', `unable to retrieve the complete list of server APIs: ${path}: not JSON`);
  }
}

function groupOf(ref: CrossVersionObjectReference): string {
  const gv = ref.apiVersion ?? '';
  if (gv.split('/').length > 2) throw new StatusError('BadRequest', `unexpected GroupVersion string: ${gv}`);
  const slash = gv.indexOf('/');
  return slash < 0 ? '' : gv.slice(0, slash);
}

/** The resource a scaleTargetRef names: any served version of its group with that kind and a scale subresource. */
export function scaleTargetResource(ref: CrossVersionObjectReference): ResourceInfo {
  const group = groupOf(ref);
  const r = RESOURCES.find((x) => x.group === group && x.kind === ref.kind && x.subresources.some((s) => s.name === 'scale'));
  if (!r) throw new StatusError('NotFound', `no matches for kind "${ref.kind}" in group "${group}"`);
  return r;
}

export class ScaleTargets {
  private readonly known = new Map<string, ResourceInfo>();

  constructor(private readonly client: Discovery) {}

  /** The resource whose /scale the reference names; throws `no matches for kind …` when none has one. */
  async resolve(ref: CrossVersionObjectReference): Promise<ResourceInfo> {
    const group = groupOf(ref);
    try {
      return scaleTargetResource(ref);
    } catch (e) {
      // Built-in groups are answered by the table; only other groups are worth a discovery round trip.
      if (!(e instanceof StatusError) || e.reason !== 'NotFound' || RESOURCES.some((r) => r.group === group)) throw e;
    }
    const key = `${group}/${ref.kind}`;
    const cached = this.known.get(key);
    if (cached) return cached;
    const found = await this.discover(group, ref.kind);
    if (!found) throw new StatusError('NotFound', `no matches for kind "${ref.kind}" in group "${group}"`);
    this.known.set(key, found);
    return found;
  }

  /** Forgets what discovery said about the reference's kind (its resource or version may have changed). */
  forget(ref: CrossVersionObjectReference): void {
    this.known.delete(`${groupOf(ref)}/${ref.kind}`);
  }

  private async discover(group: string, kind: string): Promise<ResourceInfo | undefined> {
    const apiGroup = await getJSON(this.client, `/apis/${group}`);
    if (!apiGroup) return undefined;
    const preferred = str(rec(apiGroup.preferredVersion).version);
    const versions = recs(apiGroup.versions).map((v) => str(v.version)).filter(Boolean);
    const ordered = [preferred, ...versions.filter((v) => v !== preferred)].filter(Boolean);
    for (const version of ordered) {
      const list = await getJSON(this.client, `/apis/${group}/${version}`);
      const resources = recs(list?.resources);
      const names = new Set(resources.map((r) => str(r.name)));
      const r = resources.find((x) => str(x.kind) === kind && !str(x.name).includes('/') && names.has(`${str(x.name)}/scale`));
      if (!r) continue;
      const plural = str(r.name);
      return resourceInfo(group, version, kind, plural, r.namespaced === true, { singular: str(r.singularName) || plural, verbs: [], scale: true });
    }
    return undefined;
  }
}
