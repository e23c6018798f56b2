// What a request asks to do, read from its method, path and query alone, as Kubernetes' RequestInfoFactory
// does: authorization runs before the resource is looked up, so an unknown resource is authorized (and then
// 404s) exactly as a known one is.
import type { UserInfo } from '../authn/user.ts';
import { parseFieldSelector } from '../selectors/fields.ts';
import type { Attributes } from './types.ts';

export interface RequestInfo {
  resourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The path segments from the resource on (resource/name/subresource/…). */
  parts: string[];
  /** The raw fieldSelector of a list, watch or deletecollection (not of the old /watch/ path form), for selector authorization. */
  fieldSelector?: string;
}

const API_PREFIXES = new Set(['api', 'apis']);
const GROUPLESS_PREFIXES = new Set(['api']);
const SPECIAL_VERBS = new Set(['proxy', 'watch']);
const SPECIAL_VERBS_NO_SUBRESOURCES = new Set(['proxy']);
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
const METHOD_VERBS: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function decode(seg: string): string {
  try {
    return seg.includes('%') ? decodeURIComponent(seg) : seg;
  } catch {
    return seg;
  }
}

/** A field selector's `metadata.name=<x>` (or `==`), which names the object a list/watch is limited to. */
function exactName(fieldSelector: string | null): string | undefined {
  if (!fieldSelector) return undefined;
  for (const term of fieldSelector.split(',')) {
    const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
    if (m && m[1] !== undefined && m[1] !== '' && m[1] !== '.' && m[1] !== '..' && !/[/%]/.test(m[1])) return m[1];
  }
  return undefined;
}

export function requestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const path = pathname;
  const nonResource: RequestInfo = { resourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', parts: [] };
  let parts = pathname.replace(/^\/+|\/+$/g, '').split('/').map(decode);
  if (parts.length < 3 || !API_PREFIXES.has(parts[0] as string)) return nonResource;
  const apiPrefix = parts[0] as string;
  parts = parts.slice(1);
  let apiGroup = '';
  if (!GROUPLESS_PREFIXES.has(apiPrefix)) {
    // /apis/<group>/<version>/<resource>: a group alone, or a group and version, are discovery documents.
    if (parts.length < 3) return nonResource;
    apiGroup = parts[0] as string;
    parts = parts.slice(1);
  }
  const apiVersion = parts[0] as string;
  parts = parts.slice(1);
  let verb = METHOD_VERBS[method.toUpperCase()] ?? method.toLowerCase();
  let verbViaPath = false;
  if (parts.length > 0 && SPECIAL_VERBS.has(parts[0] as string)) {
    if (parts.length < 2) return nonResource;
    verb = parts[0] as string;
    parts = parts.slice(1);
    verbViaPath = true;
  }
  let namespace = '';
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      namespace = parts[1] as string;
      // namespaces/<ns>/<resource>…, but namespaces/<ns>/status and /finalize are the namespace's own subresources.
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] as string)) parts = parts.slice(2);
    }
  }
  let resource = '';
  let name = '';
  let subresource = '';
  if (parts.length >= 3 && !SPECIAL_VERBS_NO_SUBRESOURCES.has(verb)) subresource = parts[2] as string;
  if (parts.length >= 2) name = parts[1] as string;
  if (parts.length >= 1) resource = parts[0] as string;
  if (name === '' && verb === 'get') {
    const watch = query.get('watch');
    verb = watch !== null && watch.toLowerCase() !== 'false' && watch !== '0' ? 'watch' : 'list';
    name = exactName(query.get('fieldSelector')) ?? '';
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  const info: RequestInfo = { resourceRequest: true, path, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts };
  // Kubernetes reads selectors for authorization only of these verbs, and not of the deprecated /watch/ path form.
  const fieldSelector = query.get('fieldSelector');
  if (fieldSelector !== null && !verbViaPath && SELECTOR_VERBS.has(verb)) info.fieldSelector = fieldSelector;
  return info;
}

const SELECTOR_VERBS = new Set(['list', 'watch', 'deletecollection']);

/** A raw field selector's requirements; undefined when empty or unparsable (the authorizer then sees none). */
function fieldRequirements(raw: string | undefined): Attributes['fieldSelector'] {
  if (!raw) return undefined;
  try {
    const reqs = parseFieldSelector(raw).requirements;
    return reqs.length > 0 ? reqs : undefined;
  } catch {
    return undefined;
  }
}

export function attributesOf(user: UserInfo, info: RequestInfo): Attributes {
  const fieldSelector = fieldRequirements(info.fieldSelector);
  return {
    user,
    verb: info.verb,
    resourceRequest: info.resourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    ...(fieldSelector ? { fieldSelector } : {}),
  };
}
