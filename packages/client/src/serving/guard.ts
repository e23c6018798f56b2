// The filter in front of a component's health/metrics handlers (k8s.io/controller-manager's BuildHandlerChain):
// authenticate, then authorize the non-resource request (verb = the lower-cased method, as RequestInfo has it),
// answering as Kubernetes does: 401 Unauthorized Status, 403 Forbidden Status `forbidden: User "u" cannot get path
// "/metrics"` (with the authorizer's reason after ": "), and 500 text when the SubjectAccessReview failed.
import type http from 'node:http';
import { StatusError, toStatus } from '@kemu/api';
import type { GuardRefusal, HealthGuard, Logger } from '@kemu/base';
import type { DelegatingAuthenticator } from './authn.ts';
import type { DelegatingAuthorizer, ResourceAttributes } from './authz.ts';

const JSON_TYPE = 'application/json';

// Avoid emitting errors that look like valid HTML (responsewriters' sanitizer).
const sanitize = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function unauthorized(): GuardRefusal {
  return { status: 401, contentType: JSON_TYPE, body: JSON.stringify(toStatus(new StatusError('Unauthorized', 'Unauthorized'))) };
}

export function forbidden(username: string, verb: string, path: string, reason: string): GuardRefusal {
  const msg = sanitize(`User ${JSON.stringify(username)} cannot ${verb} path ${JSON.stringify(path)}`);
  const { code, ...status } = toStatus(new StatusError('Forbidden', `forbidden: ${reason ? `${msg}: ${reason}` : msg}`));
  // Kubernetes' non-resource Forbidden carries an empty details object (before the code, as Go orders the fields).
  return { status: 403, contentType: JSON_TYPE, body: JSON.stringify({ ...status, details: {}, code }) };
}

/** Kubernetes' Forbidden for a resource request: `pods.metrics.k8s.io "x" is forbidden: User "u" cannot get resource "pods" in API group "metrics.k8s.io" in the namespace "ns"`. */
export function forbiddenResource(username: string, a: ResourceAttributes, reason: string): GuardRefusal {
  const gr = a.group ? `${a.resource}.${a.group}` : a.resource;
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  const msg = `User ${JSON.stringify(username)} cannot ${a.verb} resource ${JSON.stringify(res)} in API group ${JSON.stringify(a.group)} ${scope}`;
  const text = `${gr}${a.name ? ` ${JSON.stringify(a.name)}` : ''} is forbidden: ${reason ? `${msg}: ${reason}` : msg}`;
  const { code, ...status } = toStatus(new StatusError('Forbidden', sanitize(text)));
  const details = { ...(a.name ? { name: a.name } : {}), ...(a.group ? { group: a.group } : {}), kind: a.resource };
  return { status: 403, contentType: JSON_TYPE, body: JSON.stringify({ ...status, details, code }) };
}

/** The resource a request names (an aggregated API's RequestInfo), undefined for a non-resource path. */
export type RequestInfoResolver = (req: http.IncomingMessage, path: string) => ResourceAttributes | undefined;

export function delegatingGuard(authn: DelegatingAuthenticator, authz: DelegatingAuthorizer, logger: Logger, requestInfo?: RequestInfoResolver): HealthGuard {
  return async (req: http.IncomingMessage, path: string) => {
    let user;
    try {
      user = await authn.authenticate(req);
    } catch (e) {
      logger.debug({ err: (e as Error).message, path }, 'Unable to authenticate the request');
      return unauthorized();
    }
    const attrs = requestInfo?.(req, path);
    if (attrs) {
      let r;
      try {
        r = await authz.authorizeResource(user, attrs);
      } catch (e) {
        return { status: 500, contentType: 'text/plain; charset=utf-8', body: sanitize(`Internal Server Error: ${JSON.stringify(req.url ?? path)}: ${(e as Error).message}`) + '\n' };
      }
      if (r.decision === 'allow') return undefined;
      logger.debug({ URI: req.url, reason: r.reason }, 'Forbidden');
      return forbiddenResource(user.username, attrs, r.reason);
    }
    const verb = (req.method ?? 'GET').toLowerCase();
    let result;
    try {
      result = await authz.authorize(user, verb, path);
    } catch (e) {
      return { status: 500, contentType: 'text/plain; charset=utf-8', body: sanitize(`Internal Server Error: ${JSON.stringify(req.url ?? path)}: ${(e as Error).message}`) + '\n' };
    }
    if (result.decision === 'allow') return undefined;
    logger.debug({ URI: req.url, reason: result.reason }, 'Forbidden');
    return forbidden(user.username, verb, path, result.reason);
  };
}
