// Upgrade requests (WebSocket watches, exec-like subresources, SPDY) for an aggregated API server, as
// kube-aggregator's proxy does with the UpgradeAwareHandler: after kemu authenticated and authorized the request,
// it goes on to one endpoint of the APIService's Service with the caller's headers (less credentials and identity
// claims, as for any proxied request) and X-Remote-User/-Group/-Extra-* naming the caller, over the same TLS as
// other proxied requests (routing.ts). A 101 answer is relayed and the two connections are joined byte for byte; any other
// answer is relayed as is and the connection closed. While the APIService is not Available or its Service has
// no endpoint: 503 "service unavailable"; a failed connection: 503 with Go's error text.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { KubeObject } from '@kemu/api';
import type { UserInfo } from '../authn/user.ts';
import { goNetError, type ListObjects } from '../service-endpoint.ts';
import { backendRequest, type ProxyClientIdentity } from './transport.ts';
import { forwardedHeaders, proxyTarget } from './target.ts';

/** Not passed on (besides credentials and identity claims): what names the connection to kemu, not to the backend. */
const DROP = new Set(['authorization', 'host', 'proxy-connection', 'keep-alive', 'te', 'trailer', 'content-length']);

/** Go's http.Error written on a raw connection (the request never reached an HTTP response object). */
function plainErrorOnSocket(socket: Duplex, code: number, text: string): void {
  const body = `${text}\n`;
  const reason = code === 503 ? 'Service Unavailable' : 'Error';
  socket.end(
    `HTTP/1.1 ${code} ${reason}\r\ncache-control: no-cache, private\r\ncontent-type: text/plain; charset=utf-8\r\nx-content-type-options: nosniff\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The status line and headers of an answer, as received (raw names and order). */
function head(res: IncomingMessage, drop: ReadonlySet<string>, extra: string[] = []): string {
  const lines = [`HTTP/1.1 ${res.statusCode ?? 502} ${res.statusMessage ?? ''}`];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i] ?? '';
    if (!drop.has(name.toLowerCase())) lines.push(`${name}: ${res.rawHeaders[i + 1] ?? ''}`);
  }
  return `${[...lines, ...extra].join('\r\n')}\r\n\r\n`;
}

export async function proxyUpgradeToAPIService(
  apiService: KubeObject,
  req: IncomingMessage,
  socket: Duplex,
  clientHead: Buffer,
  user: UserInfo,
  list: ListObjects,
  id: ProxyClientIdentity,
  routeToEndpoints: boolean,
): Promise<void> {
  const t = await proxyTarget(apiService, list, routeToEndpoints);
  if ('error' in t) return plainErrorOnSocket(socket, 503, t.error);
  const { target, shown } = t;
  const headers = forwardedHeaders(req.headers, DROP, user, shown);
  const out = backendRequest(target, id, { method: req.method ?? 'GET', path: req.url ?? '/', headers });
  socket.on('error', () => out.destroy());
  out.on('upgrade', (res: IncomingMessage, upstream: Duplex, upstreamHead: Buffer) => {
    socket.write(head(res, new Set()));
    if (upstreamHead.length > 0) socket.write(upstreamHead);
    if (clientHead.length > 0) upstream.write(clientHead);
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  // Not upgraded: the answer goes back as is (its body framed by the connection's end) and the connection closes.
  out.on('response', (res: IncomingMessage) => {
    socket.write(head(res, new Set(['connection', 'transfer-encoding', 'content-length', 'keep-alive']), ['connection: close']));
    res.pipe(socket);
    socket.on('close', () => res.destroy());
  });
  out.on('error', (e) => {
    if (socket.writable) plainErrorOnSocket(socket, 503, goNetError(e, shown));
  });
  out.end();
}
