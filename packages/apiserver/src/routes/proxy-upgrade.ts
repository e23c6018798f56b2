// An upgrade (a WebSocket) through pods/proxy, services/proxy or nodes/proxy, as UpgradeAwareHandler's
// tryUpgrade: the request goes to the backend with its Connection/Upgrade/Sec-WebSocket-* headers (and
// X-Forwarded-For), and the backend's 101 with everything after it is passed back byte for byte. A backend
// that answers an error (4xx/5xx) has that answer passed on; one that answers anything else without
// upgrading, or cannot be dialled, is a 500 Status without reason ("invalid upgrade response: status code
// 200", "error dialing backend: …"), as the responder reports an error that is not an API status. Checks of
// the object (404, 503 no endpoints) come first and are thrown as Statuses. Pods' ports are reached through
// their node's kubelet (/kemu/proxy, upgraded there too).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiContext } from '../context.ts';
import { KubeletRequestError } from '../kubelet-client/client.ts';
import { forwardedFor, proxyBackend, type ProxyTarget } from './proxy.ts';
import type { RequestUrl } from './request-url.ts';

/** Request headers not passed on: the caller's credentials and what the kubelet client sets itself. */
const DROP = new Set(['host', 'authorization', 'content-length', 'impersonate-user', 'impersonate-group', 'impersonate-uid', 'proxy-connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding']);

/** A 500 Status without reason, as ErrorToAPIStatus makes of a plain error. */
function plainError(socket: Duplex, message: string): void {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
  socket.end(`HTTP/1.1 500 Internal Server Error\r\ncache-control: no-cache, private\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

function headLines(r: IncomingMessage, skip: ReadonlySet<string> = new Set()): string {
  let out = '';
  for (let i = 0; i + 1 < r.rawHeaders.length; i += 2) if (!skip.has((r.rawHeaders[i] ?? '').toLowerCase())) out += `${r.rawHeaders[i] ?? ''}: ${r.rawHeaders[i + 1] ?? ''}\r\n`;
  return out;
}

/** Framing headers of an answer that is passed on read whole (with its own length). */
const FRAMING = new Set(['transfer-encoding', 'content-length', 'connection', 'keep-alive']);

async function readAll(r: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Serves an upgrade of a proxy path after authentication and authorization; Status errors are thrown before any byte is written. */
export async function serveProxyUpgrade(ctx: ApiContext, t: ProxyTarget, req: IncomingMessage, socket: Duplex, head: Buffer, url: RequestUrl): Promise<void> {
  const backend = await proxyBackend(ctx, t, { query: url.searchParams.toString(), pathname: url.pathname, headers: req.headers });
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !DROP.has(k)) headers[k] = v;
  const xff = forwardedFor(req.headers, req.socket.remoteAddress);
  if (xff) headers['x-forwarded-for'] = xff;
  let r;
  try {
    r = await ctx.kubeletClient.request(backend.url, { method: req.method ?? 'GET', headers });
  } catch (e) {
    if (e instanceof KubeletRequestError) return plainError(socket, `error dialing backend: ${e.message.replace(/^[A-Za-z]+ "[^"]*": /, '')}`);
    throw e;
  }
  if (!('socket' in r)) {
    const { response } = r;
    const body = await readAll(response);
    if (response.headers['x-kemu-proxy-error']) return plainError(socket, `error dialing backend: ${body.toString('utf8')}`);
    if ((response.statusCode ?? 0) < 400) return plainError(socket, `invalid upgrade response: status code ${response.statusCode ?? 0}`);
    const status = `HTTP/1.1 ${response.statusCode ?? 500} ${response.statusMessage ?? ''}\r\n`;
    socket.end(Buffer.concat([Buffer.from(`${status}${headLines(response, FRAMING)}content-length: ${body.length}\r\nconnection: close\r\n\r\n`), body]));
    return;
  }
  const backendSocket = r.socket;
  socket.write(`HTTP/1.1 101 ${r.response.statusMessage ?? 'Switching Protocols'}\r\n${headLines(r.response)}\r\n`);
  if (r.head.length > 0) socket.write(r.head);
  if (head.length > 0) backendSocket.write(head);
  socket.on('error', () => backendSocket.destroy());
  backendSocket.on('error', () => socket.destroy());
  socket.on('close', () => backendSocket.destroy());
  backendSocket.on('close', () => socket.destroy());
  socket.pipe(backendSocket);
  backendSocket.pipe(socket);
}
