// One HTTP GET with a deadline: the health probe used for status lines, `kemu status` and the built-in balancer.
// An https:// URL is probed without verifying the server's certificate: a health check asks "are you up", as
// kubeadm's liveness probes of the components' self-signed ports do.
import http from 'node:http';
import https from 'node:https';

export interface ProbeResult {
  ok: boolean;
  status?: number;
  body?: string;
  error?: string;
}

export function probe(url: string, timeoutMs = 1000): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? (u: string, o: https.RequestOptions, cb: (res: http.IncomingMessage) => void) => https.get(u, { ...o, rejectUnauthorized: false }, cb) : http.get;
    const req = get(url, { timeout: timeoutMs, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        if (body.length < 4096) body += d;
      });
      res.on('end', () => resolve({ ok: res.statusCode === 200, status: res.statusCode ?? 0, body }));
      res.on('error', (e) => resolve({ ok: false, error: e.message }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs}ms`)));
    req.on('error', (e) => resolve({ ok: false, error: e.message }));
  });
}
