// The 403 a denied request gets, worded as Kubernetes' responsewriters.Forbidden and errors.NewForbidden.
import { StatusError } from '@kemu/api';
import type { Attributes } from './types.ts';

export function forbiddenMessage(a: Attributes): string {
  const username = a.user.username;
  if (!a.resourceRequest) return `User ${JSON.stringify(username)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  return `User ${JSON.stringify(username)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${scope}`;
}

export function forbidden(a: Attributes, reason: string): StatusError {
  const msg = reason ? `${forbiddenMessage(a)}: ${reason}` : forbiddenMessage(a);
  const gr = a.resource === '' ? '' : a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  const head = gr === '' ? 'forbidden' : a.name ? `${gr} ${JSON.stringify(a.name)} is forbidden` : `${gr} is forbidden`;
  const details: { name?: string; group?: string; kind?: string } = {};
  if (a.name) details.name = a.name;
  if (a.apiGroup) details.group = a.apiGroup;
  if (a.resource) details.kind = a.resource;
  return new StatusError('Forbidden', `${head}: ${msg}`, details);
}
