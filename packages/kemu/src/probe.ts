// One HTTP(S) GET with a deadline: the health probe used for status lines, `kemu status` and the built-in balancer.
// https:// URLs are checked against the lab's CA when one is given (and send its client certificate), else
// without verifying the server (HAProxy's `check-ssl verify none`: a health check, not a credential exchange).
import http from 'node:http';
import https from 'node:https';

export interface ProbeResult {
  ok: boolean;
  status?: number;
  body?: string;
  error?: string;
}

export interface ProbeTls {
  ca?: Buffer | string;
  cert?: Buffer | string;
  key?: Buffer | string;
}

/** The options of an http(s).get: for https, the CA (or no verification) and the client certificate. */
export function tlsRequestOptions(url: string, tls?: ProbeTls): https.RequestOptions {
  if (!url.startsWith('https:')) return {};
  return tls?.ca ? { ca: tls.ca, ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}) } : { rejectUnauthorized: false };
}

export function probe(url: string, timeoutMs = 1000, tls?: ProbeTls): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    const req = get(url, { timeout: timeoutMs, agent: false, ...tlsRequestOptions(url, tls) }, (res) => {
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
