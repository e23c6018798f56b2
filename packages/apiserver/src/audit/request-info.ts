// What a request is about, worked out from its method and URL alone as Kubernetes' RequestInfoFactory
// does (so unknown resources still parse): resource requests under /api and /apis get a verb
// (get/list/watch/create/update/patch/delete/deletecollection), group, version, namespace, resource,
// name and subresource; anything else is a non-resource request whose verb is the lower-cased method.
import { boolParam } from '../routes/request.ts';

export interface UserInfo {
  username: string;
  groups: string[];
}

export interface RequestAttributes {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  user: UserInfo;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
const METHOD_VERBS: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function fieldSelectorName(q: URLSearchParams): string {
  const sel = q.get('fieldSelector');
  if (!sel) return '';
  for (const term of sel.split(',')) {
    const m = /^metadata\.name(?:==?)(.*)$/.exec(term.trim());
    if (m && m[1] && !m[1].includes('/') && m[1] !== '.' && m[1] !== '..') return m[1];
  }
  return '';
}

export function requestAttributes(method: string, url: string, user: UserInfo): RequestAttributes {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const a: RequestAttributes = { isResourceRequest: false, path, verb: method.toLowerCase(), apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', user };
  let parts = path.split('/').filter((p) => p !== '');
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return a;
  const prefix = parts[0];
  parts = parts.slice(1);
  if (prefix === 'apis') {
    if (parts.length < 3) return a;
    a.apiGroup = parts[0] as string;
    parts = parts.slice(1);
  }
  a.isResourceRequest = true;
  a.apiVersion = parts[0] as string;
  parts = parts.slice(1);
  if (parts[0] === 'watch' || parts[0] === 'proxy') {
    if (parts.length < 2) return a;
    a.verb = parts[0];
    parts = parts.slice(1);
  } else {
    a.verb = METHOD_VERBS[method] ?? '';
  }
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      a.namespace = parts[1] as string;
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] as string)) parts = parts.slice(2);
    }
  }
  if (parts.length >= 3 && a.verb !== 'proxy') a.subresource = parts[2] as string;
  if (parts.length >= 2) a.name = parts[1] as string;
  if (parts.length >= 1) a.resource = parts[0] as string;
  if (a.name === '' && a.verb === 'get') {
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    a.verb = boolParam(query, 'watch') === true ? 'watch' : 'list';
    a.name = fieldSelectorName(query);
  }
  if (a.name === '' && a.verb === 'delete') a.verb = 'deletecollection';
  return a;
}
