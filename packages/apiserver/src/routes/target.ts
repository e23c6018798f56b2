// Parses an /api or /apis path into what it names: a discovery document, or a resource collection,
// object or subresource (namespaced or cluster-scoped), exactly as Kubernetes lays out its URLs.
import { errors, findServedResource, onServedResourcesChange, servedResources, StatusError, type ResourceInfo } from '@kemu/api';
import { isValidPathSegmentName } from '@kemu/api';

export type Target =
  | { kind: 'root'; prefix: 'api' | 'apis' }
  | { kind: 'group'; group: string }
  | { kind: 'groupVersion'; group: string; version: string }
  | {
      kind: 'resource';
      resource: ResourceInfo;
      namespace?: string;
      name?: string;
      subresource?: string;
      /** The deprecated /watch/ path prefix was used. */
      watchPath: boolean;
    };

export function pageNotFound(): StatusError {
  return new StatusError('NotFound', 'the server could not find the requested resource');
}

let GROUPS = new Set<string>();
let GROUP_VERSIONS = new Set<string>();
function indexGroups(): void {
  GROUPS = new Set(servedResources().map((r) => r.group));
  GROUP_VERSIONS = new Set(servedResources().map((r) => `${r.group}/${r.version}`));
}
indexGroups();
// Custom resources come and go with their CustomResourceDefinitions.
onServedResourcesChange(indexGroups);

function findIn(group: string, version: string, plural: string): ResourceInfo | undefined {
  return findServedResource(group, version, plural);
}

export function parseTarget(pathname: string): Target {
  let parts: string[];
  try {
    parts = pathname.split('/').filter((p) => p !== '').map((p) => (p.includes('%') ? decodeURIComponent(p) : p));
  } catch {
    throw pageNotFound();
  }
  const head = parts.shift();
  let group: string;
  let version: string | undefined;
  if (head === 'api') {
    if (parts.length === 0) return { kind: 'root', prefix: 'api' };
    group = '';
    version = parts.shift();
  } else if (head === 'apis') {
    if (parts.length === 0) return { kind: 'root', prefix: 'apis' };
    group = parts.shift() as string;
    if (!GROUPS.has(group) || group === '') throw pageNotFound();
    if (parts.length === 0) return { kind: 'group', group };
    version = parts.shift();
  } else {
    throw pageNotFound();
  }
  if (!version || !GROUP_VERSIONS.has(`${group}/${version}`)) throw pageNotFound();
  if (parts.length === 0) return { kind: 'groupVersion', group, version };
  let watchPath = false;
  if (parts[0] === 'watch') {
    watchPath = true;
    parts.shift();
  }
  let namespace: string | undefined;
  // /namespaces/<ns>/<plural>... is a namespaced path, unless it is the namespace itself (or its subresource).
  if (parts[0] === 'namespaces' && parts.length >= 3) {
    const nsRes = findIn(group, version, 'namespaces');
    const sub = parts[2] as string;
    const isNsSub = nsRes && parts.length === 3 && nsRes.subresources.some((s) => s.name === sub);
    if (!isNsSub || group !== '') {
      namespace = parts[1];
      parts.splice(0, 2);
    }
  }
  const plural = parts.shift() as string;
  const resource = findIn(group, version, plural);
  if (!resource) throw pageNotFound();
  if (namespace !== undefined && !resource.namespaced) throw pageNotFound();
  const name = parts.shift();
  const subresource = parts.shift();
  if (parts.length > 0) throw pageNotFound();
  if (subresource !== undefined && !resource.subresources.some((s) => s.name === subresource)) throw pageNotFound();
  // The registry's key function refuses a name that cannot be one path segment (".", "..", "/" or "%"),
  // before anything is read or written.
  const nameErrors = name === undefined ? [] : isValidPathSegmentName(name);
  if (nameErrors.length > 0) throw errors.badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${nameErrors.join(';')}`);
  // Kubernetes' storage refuses such a namespace as an "invalid key" (a 500 there); a 400 here, in the same words.
  const nsErrors = namespace === undefined ? [] : isValidPathSegmentName(namespace);
  if (nsErrors.length > 0) throw errors.badRequest(`Namespace parameter invalid: ${JSON.stringify(namespace)}: ${nsErrors.join(';')}`);
  const t: Target = { kind: 'resource', resource, watchPath };
  if (namespace !== undefined) t.namespace = namespace;
  if (name !== undefined) t.name = name;
  if (subresource !== undefined) t.subresource = subresource;
  return t;
}

