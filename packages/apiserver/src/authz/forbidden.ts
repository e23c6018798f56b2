// The 403 a denied request gets, worded as Kubernetes' responsewriters.Forbidden: forbiddenMessage (HTML-like
// characters escaped, the reason appended after ": ") wrapped by apierrors.NewForbidden, whose details name
// the group, the resource (as kind) and the object.
import { StatusError } from '@kemu/api';
import { goQuote } from '@kemu/base';
import type { Attributes } from './types.ts';

const SANITIZE: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
/** responsewriters' sanitizer: an error must not look like HTML. */
export const sanitize = (s: string): string => s.replace(/[&<>]/g, (c) => SANITIZE[c] ?? c);

/** forbiddenMessage: who cannot do what, where. */
export function forbiddenMessage(a: Attributes): string {
  const username = a.user?.username ?? '';
  if (!a.resourceRequest) return `User ${goQuote(username)} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource !== '' ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace !== '' ? `in the namespace ${goQuote(a.namespace)}` : 'at the cluster scope';
  return `User ${goQuote(username)} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)} ${where}`;
}

/** The Forbidden StatusError for a request the authorizer did not allow (reason: the authorizer's). */
export function forbiddenError(a: Attributes, reason: string): StatusError {
  const msg = sanitize(forbiddenMessage(a));
  const err = reason === '' ? msg : `${msg}: ${reason}`;
  const { apiGroup: group, resource, name } = a;
  const qualified = group === '' ? resource : `${resource}.${group}`;
  let message: string;
  if (group === '' && resource === '') message = `forbidden: ${err}`;
  else if (name === '') message = `${qualified} is forbidden: ${err}`;
  else message = `${qualified} ${goQuote(name)} is forbidden: ${err}`;
  // Go's omitempty: only the non-empty fields; an empty details object is still sent.
  const details: { group?: string; kind?: string; name?: string } = {};
  if (group !== '') details.group = group;
  if (resource !== '') details.kind = resource;
  if (name !== '') details.name = name;
  return new StatusError('Forbidden', message, details);
}
