// metrics-server's health endpoints: /livez and /healthz pass while scrapes are timely (the last one ended within
// 1.5 resolutions and a request timeout, or the first is still under way); /readyz also needs the informers
// synced and stored metrics (metric-storage-ready: a first scrape stored). Bodies as k8s.io/apiserver's healthz writes them.
import type http from 'node:http';

export type Check = [name: string, ok: () => boolean];

export function healthRoutes(checks: { livez: Check[]; readyz: Check[] }) {
  return (req: http.IncomingMessage, res: http.ServerResponse, pathname: string): boolean => {
    const list = pathname === '/readyz' ? checks.readyz : pathname === '/livez' || pathname === '/healthz' ? checks.livez : undefined;
    if (!list) return false;
    const results: [string, boolean][] = [['ping', true], ['log', true], ...list.map(([n, ok]): [string, boolean] => [n, ok()])];
    const healthy = results.every(([, ok]) => ok);
    const verbose = new URL(req.url ?? '/', 'http://x').searchParams.has('verbose');
    const body =
      verbose || !healthy
        ? results.map(([name, ok]) => `[${ok ? '+' : '-'}]${name} ${ok ? 'ok' : 'failed: reason withheld'}`).join('\n') + `\n${pathname.slice(1)} check ${healthy ? 'passed' : 'failed'}\n`
        : 'ok';
    res.writeHead(healthy ? 200 : 500, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache, private' });
    res.end(body);
    return true;
  };
}
