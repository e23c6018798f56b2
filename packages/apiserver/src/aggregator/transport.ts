// How the aggregator calls an aggregated API server (kube-aggregator's BuildTransportConfig): HTTPS to one
// endpoint of the APIService's Service, the Service's DNS name as TLS server name, verified with spec.caBundle
// (or not at all with insecureSkipTLSVerify), presenting the front-proxy client certificate
// (--proxy-client-cert-file/--proxy-client-key-file), and the user in X-Remote-* headers.
import https from 'node:https';
import net from 'node:net';
import type { KubeObject } from '@kemu/api';
import type { UserInfo } from '../authn/user.ts';
import { asRecord, asString } from '../validation/field.ts';
import type { ServiceRef } from '../service-endpoint.ts';

/** The front-proxy client certificate and key (PEM); none: the aggregator presents no certificate. */
export interface ProxyClientIdentity {
  cert?: string;
  key?: string;
}

export interface BackendTarget {
  host: string;
  port: number;
  servername: string;
  /** PEM CA certificates; undefined with insecure: the system roots. */
  ca?: string;
  insecure: boolean;
}

/** spec.service of a non-local APIService (port defaulted to 443), or undefined for a local one. */
export function serviceRefOf(apiService: KubeObject): ServiceRef | undefined {
  const svc = asRecord(asRecord(apiService.spec)?.service);
  if (!svc) return undefined;
  return { namespace: asString(svc.namespace) ?? '', name: asString(svc.name) ?? '', port: typeof svc.port === 'number' ? svc.port : 443 };
}

export function tlsOf(apiService: KubeObject, ref: ServiceRef): Pick<BackendTarget, 'servername' | 'ca' | 'insecure'> {
  const spec = asRecord(apiService.spec) ?? {};
  const bundle = asString(spec.caBundle);
  return {
    servername: `${ref.name}.${ref.namespace}.svc`,
    ...(bundle ? { ca: Buffer.from(bundle, 'base64').toString('utf8') } : {}),
    insecure: spec.insecureSkipTLSVerify === true,
  };
}

/** transport.SetAuthProxyHeaders: X-Remote-User, one X-Remote-Group per group, X-Remote-Extra-<key> (key escaped). */
export function authProxyHeaders(user: UserInfo): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = { 'x-remote-user': user.username };
  if (user.groups.length > 0) h['x-remote-group'] = [...user.groups];
  for (const [k, values] of Object.entries(user.extra ?? {})) h[`x-remote-extra-${encodeURIComponent(k)}`] = [...values];
  return h;
}

// One keep-alive pool for every aggregated server (Node keys connections by host, port, CA, cert and server name).
const agent = new https.Agent({ keepAlive: true });

export function backendRequest(
  t: BackendTarget,
  id: ProxyClientIdentity,
  o: { method: string; path: string; headers: Record<string, string | string[]>; timeoutMs?: number },
): ReturnType<typeof https.request> {
  return https.request({
    method: o.method,
    host: t.host,
    port: t.port,
    path: o.path,
    headers: o.headers,
    ...(net.isIP(t.servername) === 0 ? { servername: t.servername } : {}),
    ...(t.ca ? { ca: t.ca } : {}),
    ...(id.cert && id.key ? { cert: id.cert, key: id.key } : {}),
    // Node verifies the server name (the Service's DNS name) though the connection goes to an endpoint's IP.
    rejectUnauthorized: !t.insecure,
    ...(o.timeoutMs ? { timeout: o.timeoutMs } : {}),
    agent,
  });
}
