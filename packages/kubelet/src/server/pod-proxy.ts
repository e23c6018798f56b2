// kemu's own kubelet endpoint /kemu/proxy/{podNamespace}/{podID}/{port}/{path…}: one HTTP request to a port of a
// pod's emulated servers. A real apiserver dials the pod IP itself for pods/proxy and services/proxy; kemu's
// pod IPs lead nowhere, so the apiserver asks the pod's kubelet (authorized as nodes/proxy, like every other
// path). Nothing listening there: 502 with the dial error in Go's words and the X-Kemu-Proxy-Error header,
// which the apiserver turns into its 503 "error trying to reach service".
import http from 'node:http';
import type { Clock, HealthRoutes } from '@kemu/base';
import { connectPod } from '../servers/pod-servers.ts';
import type { LoggedPod } from './container-logs.ts';
import { serverView } from './port-forward.ts';

export const POD_PROXY_PREFIX = '/kemu/proxy/';
/** Set on a reply the kubelet made itself because the pod's port could not be reached. */
export const PROXY_ERROR_HEADER = 'x-kemu-proxy-error';

export interface PodProxyDeps {
  findPod(namespace: string, name: string): LoggedPod | undefined;
  clock: Clock;
}

/** Namespace, pod, port and the rest of the path (with its leading slash), or undefined. */
export function podProxyTarget(path: string): { namespace: string; pod: string; port: number; rest: string } | undefined {
  if (!path.startsWith(POD_PROXY_PREFIX)) return undefined;
  const parts = path.slice(POD_PROXY_PREFIX.length).split('/');
  const [ns, pod, port] = parts;
  const n = Number(port);
  if (!ns || !pod || !Number.isInteger(n) || n <= 0 || n > 65535) return undefined;
  try {
    return { namespace: decodeURIComponent(ns), pod: decodeURIComponent(pod), port: n, rest: `/${parts.slice(3).join('/')}` };
  } catch {
    return undefined;
  }
}

/** Hop-by-hop headers a proxy drops (Go's httputil.ReverseProxy list). */
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function plain(res: http.ServerResponse, status: number, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...extra });
  res.end(body);
}

export function podProxyRoutes(deps: PodProxyDeps): HealthRoutes {
  return (req, res, path) => {
    if (!path.startsWith(POD_PROXY_PREFIX)) return false;
    const t = podProxyTarget(path);
    if (!t) {
      plain(res, 404, '404: Page Not Found');
      return true;
    }
    const w = deps.findPod(t.namespace, t.pod);
    if (!w) {
      plain(res, 404, 'pod does not exist');
      return true;
    }
    const ip = w.current.status?.podIP ?? '';
    const conn = connectPod(serverView(w, deps.clock), t.port);
    if (!conn) {
      const where = ip.includes(':') ? `[${ip}]:${t.port}` : `${ip}:${t.port}`;
      plain(res, 502, `dial tcp ${where}: connect: connection refused`, { [PROXY_ERROR_HEADER]: 'dial' });
      return true;
    }
    const query = new URL(req.url ?? '/', 'http://x').search;
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
    const out = http.request({ method: req.method ?? 'GET', path: `${t.rest}${query}`, headers, createConnection: () => conn as never }, (answer) => {
      const back: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) back[k] = v;
      res.writeHead(answer.statusCode ?? 502, back);
      answer.pipe(res);
    });
    out.on('error', (e) => {
      if (!res.headersSent) plain(res, 502, String(e.message), { [PROXY_ERROR_HEADER]: 'read' });
      else res.destroy();
    });
    res.on('close', () => conn.destroy());
    req.pipe(out);
    return true;
  };
}
