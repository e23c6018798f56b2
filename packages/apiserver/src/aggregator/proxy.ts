// Proxying /apis/<group>/<version>/... to the aggregated API server of a non-local APIService (kube-aggregator's
// proxyHandler), after kemu has authenticated and authorized the request: 503 "service unavailable" while the
// APIService is not Available or its Service cannot be routed to; otherwise the request goes on to the Service
// (routing.ts, transport.ts) without the caller's credentials, with X-Remote-User/-Group/-Extra-* naming the caller, and
// the answer streams back as it comes (watches included). A connection that fails is a 503 with Go's error text.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '@kemu/api';
import type { UserInfo } from '../authn/user.ts';
import { goNetError, type ListObjects } from '../service-endpoint.ts';
import { backendRequest, type ProxyClientIdentity } from './transport.ts';
import { forwardedHeaders, proxyTarget } from './target.ts';

/** Request headers not passed on (besides credentials and identity claims): hop-by-hop ones, Host, the length. */
const DROP = new Set(['connection', 'proxy-connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'authorization', 'content-length']);
const DROP_BACK = new Set(['connection', 'proxy-connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Go's http.Error: text/plain, nosniff, the text and a newline. */
export function plainError(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache, private' });
  res.end(`${text}\n`);
}

export interface AggregatedRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer | undefined;
  user: UserInfo;
}

export async function proxyToAPIService(apiService: KubeObject, req: AggregatedRequest, res: ServerResponse, list: ListObjects, id: ProxyClientIdentity, routeToEndpoints: boolean): Promise<void> {
  const t = await proxyTarget(apiService, list, routeToEndpoints);
  if ('error' in t) return plainError(res, 503, t.error);
  const { target, shown } = t;
  const u = new URL(req.url, 'http://x');
  // location.RawQuery = req.URL.Query().Encode(): the query re-encoded.
  const query = new URLSearchParams([...u.searchParams.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString();
  const headers = forwardedHeaders(req.headers, DROP, req.user, shown);
  if (req.body && req.body.length > 0) headers['content-length'] = String(req.body.length);
  await new Promise<void>((resolve) => {
    const out = backendRequest(target, id, { method: req.method, path: `${u.pathname}${query ? `?${query}` : ''}`, headers });
    out.on('response', (answer: IncomingMessage) => {
      const back: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !DROP_BACK.has(k)) back[k] = v;
      res.writeHead(answer.statusCode ?? 502, back);
      res.flushHeaders();
      res.on('close', () => answer.destroy());
      answer.on('end', resolve);
      answer.on('close', resolve);
      answer.pipe(res);
    });
    out.on('error', (e) => {
      if (res.headersSent) res.destroy();
      else plainError(res, 503, goNetError(e, shown));
      resolve();
    });
    res.on('close', () => out.destroy());
    out.end(req.body && req.body.length > 0 ? req.body : undefined);
  });
}
