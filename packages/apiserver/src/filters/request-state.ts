// What the pipeline's stages learn about a request and hand on: its RequestInfo (read once) and who it acts as
// after authentication and impersonation (audit keeps who authenticated). Kept beside the raw
// request so the WebSocket upgrade path, which never enters fastify, reads the same state.
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../authn/user.ts';
import { requestInfo, type RequestInfo } from '../authz/request-info.ts';
import { requestUrl } from '../routes/request-url.ts';

export interface RequestState {
  info: RequestInfo;
  /** The user the request acts as (the impersonated one when impersonating). */
  user?: UserInfo;
}

const states = new WeakMap<IncomingMessage, RequestState>();

export function requestState(raw: IncomingMessage): RequestState {
  let s = states.get(raw);
  if (!s) {
    const u = requestUrl(raw.url ?? '/');
    s = { info: requestInfo(raw.method ?? 'GET', u.pathname, u.searchParams) };
    states.set(raw, s);
  }
  return s;
}

/** The user a request acts as; undefined before authentication has run. */
export function requestUser(raw: IncomingMessage): UserInfo | undefined {
  return states.get(raw)?.user;
}
