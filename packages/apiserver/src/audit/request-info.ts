// What the audit policy matches on: the request's RequestInfo (authz/request-info.ts) and its user.
import { requestInfo, type RequestInfo } from '../authz/request-info.ts';

export type { UserInfo } from '../authn/user.ts';
import type { UserInfo } from '../authn/user.ts';

/** The RequestInfo fields a policy rule reads, and the user. */
export type RequestAttributes = Pick<RequestInfo, 'path' | 'verb' | 'apiGroup' | 'apiVersion' | 'namespace' | 'resource' | 'subresource' | 'name'> & { isResourceRequest: boolean; user: UserInfo };

export function requestAttributes(method: string, url: string, user: UserInfo): RequestAttributes {
  const q = url.indexOf('?');
  const info = requestInfo(method, q < 0 ? url : url.slice(0, q), new URLSearchParams(q < 0 ? '' : url.slice(q + 1)));
  return { isResourceRequest: info.resourceRequest, path: info.path, verb: info.verb, apiGroup: info.apiGroup, apiVersion: info.apiVersion, namespace: info.namespace, resource: info.resource, subresource: info.subresource, name: info.name, user };
}
