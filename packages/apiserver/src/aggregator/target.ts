// Where a request proxied to an aggregated API server goes, shared by the plain proxy (proxy.ts) and the upgrade
// proxy (proxy-upgrade.ts): the endpoint and TLS settings, or the text of the 503 kube-aggregator answers instead;
// and the caller's headers as passed on (no credentials or identity claims; X-Remote-* naming the caller).
import type { IncomingHttpHeaders } from 'node:http';
import type { KubeObject } from '@kemu/api';
import type { UserInfo } from '../authn/user.ts';
import { asArray, asRecord, isRecord } from '../validation/field.ts';
import { goNetError, type ListObjects } from '../service-endpoint.ts';
import { authProxyHeaders, serviceRefOf, tlsOf, type BackendTarget } from './transport.ts';
import { connectionRefused, joinHostPort, resolveBackend, type Backend, type HostPort } from './routing.ts';

/** Headers never passed on: the caller's credentials and identity claims (besides each proxy's hop-by-hop set). */
const DROP_PREFIX = ['impersonate-', 'x-remote-'];

export function isAvailable(apiService: KubeObject): boolean {
  return (asArray(asRecord(apiService.status)?.conditions) ?? []).some((c) => isRecord(c) && c.type === 'Available' && c.status === 'True');
}

export type ProxyTarget =
  | { target: BackendTarget; /** The address named in the Host header and in errors (routing.ts). */ shown: HostPort & Pick<BackendTarget, 'servername'> }
  | { error: string };

/** The backend for apiService, or the 503 text: "service unavailable", or Go's dial error when nothing is behind it. */
export async function proxyTarget(apiService: KubeObject, list: ListObjects, routeToEndpoints: boolean): Promise<ProxyTarget> {
  const ref = serviceRefOf(apiService);
  if (!ref || !isAvailable(apiService)) return { error: 'service unavailable' };
  let b: Backend;
  try {
    b = await resolveBackend(ref, list, routeToEndpoints);
  } catch {
    return { error: 'service unavailable' };
  }
  const tls = tlsOf(apiService, ref);
  const shown = { ...b.shown, ...tls };
  if (!b.dial) return { error: goNetError(connectionRefused(), shown) };
  return { target: { ...b.dial, ...tls }, shown };
}

/** The caller's headers less `drop` and credentials/identity claims, plus X-Remote-* for `user` and Host: `shown`. */
export function forwardedHeaders(headers: IncomingHttpHeaders, drop: ReadonlySet<string>, user: UserInfo, shown: HostPort): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !drop.has(k) && !DROP_PREFIX.some((p) => k.startsWith(p))) out[k] = v;
  Object.assign(out, authProxyHeaders(user));
  out.host = joinHostPort(shown);
  return out;
}
