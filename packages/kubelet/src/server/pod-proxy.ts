// kemu's own kubelet endpoint /kemu/proxy/{podNamespace}/{podID}/{port}/{path…}: one HTTP request to a port of a
// pod's emulated servers. A real apiserver dials the pod IP itself for pods/proxy and services/proxy; kemu's
// pod IPs lead nowhere, so the apiserver asks the pod's kubelet (authorized as nodes/proxy, like every other
// path). Nothing listening there: 502 with the dial error in Go's words and the X-Kemu-Proxy-Error header,
// which the apiserver turns into its 503 "error trying to reach service". An upgrade (a WebSocket through the
// pod or service proxy) is written to the pod's server as it came and the two connections are joined, so the
// pod's own answer (101, or a page from a server that does not upgrade) goes back unchanged.
import http from 'node:http';
import type { Duplex } from 'node:stream';
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

function rawPlain(socket: Duplex, status: number, text: string, body: string, extra = ''): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`);
}

/** Headers the upgrade hop does not pass on (the connection's own; Connection and Upgrade are the request). */
const UPGRADE_DROP = new Set(['proxy-connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'content-length']);

/** Handles an upgrade of /kemu/proxy/…: the request is written to the pod's port and the connections joined. */
export function servePodProxyUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, path: string, deps: PodProxyDeps): void {
  const t = podProxyTarget(path);
  if (!t) return rawPlain(socket, 404, 'Not Found', '404: Page Not Found');
  const w = deps.findPod(t.namespace, t.pod);
  if (!w) return rawPlain(socket, 404, 'Not Found', 'pod does not exist');
  const conn = connectPod(serverView(w, deps.clock), t.port);
  if (!conn) {
    const ip = w.current.status?.podIP ?? '';
    const where = ip.includes(':') ? `[${ip}]:${t.port}` : `${ip}:${t.port}`;
    return rawPlain(socket, 502, 'Bad Gateway', `dial tcp ${where}: connect: connection refused`, `${PROXY_ERROR_HEADER}: dial\r\n`);
  }
  const query = new URL(req.url ?? '/', 'http://x').search;
  let request = `${req.method ?? 'GET'} ${t.rest}${query} HTTP/1.1\r\n`;
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] ?? '';
    if (!UPGRADE_DROP.has(name.toLowerCase())) request += `${name}: ${req.rawHeaders[i + 1] ?? ''}\r\n`;
  }
  conn.write(`${request}\r\n`);
  if (head.length > 0) conn.write(head);
  socket.on('error', () => conn.destroy());
  conn.on('error', () => socket.destroy());
  socket.on('close', () => conn.destroy());
  conn.on('close', () => socket.destroy());
  socket.pipe(conn);
  conn.pipe(socket);
}
