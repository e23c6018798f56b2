// The /healthz, /livez, /readyz and /metrics endpoints every component serves on --secure-port
// (port 0 turns the server off, as in Kubernetes).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry, collectDefaultMetrics } from 'prom-client';

export type HealthCheck = () => boolean | Promise<boolean>;

export interface HealthServerOptions {
  bindAddress: string;
  port: number;
  /** Named checks, reported by /healthz?verbose; all must pass for 200. */
  checks: Record<string, HealthCheck>;
  registry?: Registry;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export function newMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer | undefined> {
  if (opts.port === 0) return undefined;
  const server = http.createServer((req, res) => {
    void handle(opts, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.bindAddress, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(opts: HealthServerOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
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
