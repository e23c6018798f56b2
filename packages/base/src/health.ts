// The /healthz, /livez, /readyz and /metrics endpoints every component serves on --secure-port
// (port 0 turns the server off, as in Kubernetes). With `tls` it serves HTTPS (asking for, never requiring, a
// client certificate when a client CA is given) and every request first passes the `guard` — the component's
// delegated authentication and authorization (see @kemu/client's serving module), which may refuse it.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Registry, collectDefaultMetrics } from 'prom-client';

export type HealthCheck = () => boolean | Promise<boolean>;

export interface HealthServerOptions {
  bindAddress: string;
  port: number;
  /** Named checks, reported by /healthz?verbose; all must pass for 200. */
  checks: Record<string, HealthCheck>;
  registry?: Registry;
  /** Serve HTTPS with this certificate (chain) and key. */
  tls?: HealthTls;
  /** Asked before every request is served: a refusal is sent as it is. */
  guard?: HealthGuard;
  /** The component's own endpoints (the kubelet's API), asked after the guard: true when it answered. */
  routes?: HealthRoutes;
  /** The component's upgrade endpoints (the kubelet's exec/attach), asked after the guard: true when it took the socket. */
  upgrade?: HealthUpgrade;
}

export type HealthRoutes = (req: http.IncomingMessage, res: http.ServerResponse, path: string) => boolean | Promise<boolean>;

export type HealthUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer, path: string) => boolean | Promise<boolean>;

export interface HealthTls {
  cert: string | Buffer;
  key: string | Buffer;
  /** CA bundle(s) named in the certificate request; unverified certificates still connect (the guard decides). */
  clientCA?: string | Buffer;
  /** Ask for a client certificate even with no clientCA yet (one may come later through setTls). */
  requestClientCert?: boolean;
}

export interface GuardRefusal {
  status: number;
  contentType: string;
  body: string;
}

export type HealthGuard = (req: http.IncomingMessage, path: string) => Promise<GuardRefusal | undefined>;

export interface HealthServer {
  port: number;
  /** New certificate or client CAs for connections from now on (HTTPS servers only). */
  setTls?(tls: HealthTls): void;
  close(): Promise<void>;
}

export function newMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer | undefined> {
  if (opts.port === 0) return undefined;
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    void guarded(opts, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    });
  };
  const t = opts.tls;
  const secure = (x: HealthTls) => ({
    cert: x.cert,
    key: x.key,
    ...(x.clientCA ? { ca: x.clientCA } : {}),
    ...(x.clientCA || x.requestClientCert ? { requestCert: true, rejectUnauthorized: false } : {}),
  });
  const server = t ? https.createServer(secure(t), listener) : http.createServer(listener);
  if (opts.upgrade) server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void upgraded(opts, req, socket, head));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.bindAddress, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    ...(server instanceof https.Server ? { setTls: (x: HealthTls) => server.setSecureContext(secure(x)) } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function guarded(opts: HealthServerOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (opts.guard) {
    const refusal = await opts.guard(req, new URL(req.url ?? '/', 'http://x').pathname);
    if (refusal) {
      res.writeHead(refusal.status, { 'content-type': refusal.contentType, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache, private' });
      res.end(refusal.body);
      return;
    }
  }
  await handle(opts, req, res);
}

function rawReply(socket: Duplex, status: number, contentType: string, body: string): void {
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\ncontent-type: ${contentType}\r\nx-content-type-options: nosniff\r\ncache-control: no-cache, private\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

/** An upgrade request: the same guard, then the component's handler; nothing else upgrades (404). */
async function upgraded(opts: HealthServerOptions, req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  socket.on('error', () => socket.destroy());
  try {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (opts.guard) {
      const refusal = await opts.guard(req, path);
      if (refusal) return rawReply(socket, refusal.status, refusal.contentType, refusal.body);
    }
    if (opts.upgrade && (await opts.upgrade(req, socket, head, path))) return;
    rawReply(socket, 404, 'text/plain', '404 page not found\n');
  } catch {
    if (!socket.destroyed) rawReply(socket, 500, 'text/plain', 'internal error\n');
  }
}

async function handle(opts: HealthServerOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  if (opts.routes && (await opts.routes(req, res, url.pathname))) return;
  if (url.pathname === '/metrics' && opts.registry) {
    const body = await opts.registry.metrics();
    res.writeHead(200, { 'content-type': opts.registry.contentType });
    res.end(body);
    return;
  }
  if (!['/healthz', '/livez', '/readyz'].includes(url.pathname)) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('404 page not found\n');
    return;
  }
  const results: [string, boolean][] = [['ping', true]];
  for (const [name, check] of Object.entries(opts.checks)) {
    let ok = false;
    try {
      ok = await check();
    } catch {
      ok = false;
    }
    results.push([name, ok]);
  }
  const healthy = results.every(([, ok]) => ok);
  let body: string;
  if (url.searchParams.has('verbose') || !healthy) {
    body =
      results.map(([name, ok]) => `[${ok ? '+' : '-'}]${name} ${ok ? 'ok' : 'failed: reason withheld'}`).join('\n') +
      `\n${url.pathname.slice(1)} check ${healthy ? 'passed' : 'failed'}\n`;
  } else {
    body = 'ok';
  }
  res.writeHead(healthy ? 200 : 500, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache, private' });
  res.end(body);
}
