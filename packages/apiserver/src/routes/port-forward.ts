// pods/<name>/portforward, as kube-apiserver's PortForwardREST: the pod's node's kubelet is asked to upgrade
// /portForward/<ns>/<pod> to SPDY/3.1 (portforward.k8s.io) with the apiserver's kubelet client certificate, and
// the two connections are joined. kubectl ≥ 1.31 first asks for a WebSocket with the subprotocol
// "SPDY/3.1+portforward.k8s.io" (the PortForwardWebsockets gate, beta and on in 1.31): the SPDY session then
// travels in binary WebSocket messages, which the tunneling handler unwraps towards the kubelet. A refused
// WebSocket makes kubectl retry with a plain `Upgrade: SPDY/3.1` POST, which is joined byte for byte.
// Authorization is the request's own verb (`get` for a WebSocket GET): AuthorizePodWebsocketUpgradeCreatePermission,
// which also asks for `create`, is a 1.35 gate, later than the v1.31 kemu serves (as pods/exec and pods/attach).
import { errors, R, StatusError } from '@kemu/api';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { authorizationOutcome } from '../authz/decide.ts';
import { attributesOf } from '../authz/request-info.ts';
import type { Authorizer } from '../authz/types.ts';
import type { ApiContext } from '../context.ts';
import { PlainTextError } from '../filters/authorization.ts';
import { requestState } from '../filters/request-state.ts';
import { KubeletRequestError } from '../kubelet-client/client.ts';
import { NoPreferredAddressError } from '../kubelet-client/connection-info.ts';
import type { RequestUrl } from './request-url.ts';
import { parseTarget } from './target.ts';

export const PORT_FORWARD_PROTOCOL_V1 = 'portforward.k8s.io';
/** constants.WebsocketsSPDYTunnelingPrefix: a WebSocket subprotocol carrying SPDY. */
export const SPDY_TUNNELING_PREFIX = 'SPDY/3.1+';

const TUNNEL_PROTOCOL = SPDY_TUNNELING_PREFIX + PORT_FORWARD_PROTOCOL_V1;
/** The subprotocol chosen per request. ws refuses "SPDY/3.1+…" ("/" is no token character; gorilla does not mind), so the
 * offer is taken off the request before the handshake and the answer put on the 101 here. */
const chosen = new WeakMap<IncomingMessage, string>();
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
wss.on('headers', (headers, req) => {
  const p = chosen.get(req);
  if (p) headers.push(`Sec-WebSocket-Protocol: ${p}`);
});

/** Whether a path names pods/<name>/portforward. */
export function isPortForwardPath(pathname: string): boolean {
  return /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/portforward\/?$/.test(pathname);
}

function headerValues(req: IncomingMessage, name: string): string[] {
  const v = req.headers[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((x) => x.split(',')).map((x) => x.trim()).filter((x) => x !== '');
}

function isWebSocket(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** The tunneling request: a WebSocket offering SPDY/3.1+… subprotocols. */
export function isTunnelingRequest(req: IncomingMessage): boolean {
  return isWebSocket(req) && headerValues(req, 'sec-websocket-protocol').some((p) => p.startsWith(SPDY_TUNNELING_PREFIX));
}

/** The kubelet's upgraded connection for the pod, or the error to answer. */
async function dialKubelet(ctx: ApiContext, namespace: string, name: string, method: string, query: string): Promise<{ socket: Duplex; head: Buffer; headers: IncomingMessage['headers'] } | { code: number; headers: IncomingMessage['headers']; body: Buffer }> {
  const pod = await ctx.registry.get(R.pods, namespace, name);
  const nodeName = ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? '';
  if (nodeName === '') throw errors.badRequest(`pod ${name} does not have a host assigned`);
  const node = await ctx.registry.get(R.nodes, undefined, nodeName);
  const kubelet = ctx.kubeletClient;
  let url: URL;
  try {
    url = kubelet.url(kubelet.connectionInfo(node), `/portForward/${namespace}/${name}`, query);
  } catch (e) {
    if (e instanceof NoPreferredAddressError) throw new StatusError('InternalError', e.message);
    throw e;
  }
  let r;
  try {
    r = await kubelet.request(url, { method, headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': PORT_FORWARD_PROTOCOL_V1 } });
  } catch (e) {
    if (e instanceof KubeletRequestError) throw new StatusError('InternalError', e.message);
    throw e;
  }
  if ('socket' in r) return { socket: r.socket, head: r.head, headers: r.response.headers };
  const chunks: Buffer[] = [];
  for await (const c of r.response) chunks.push(c as Buffer);
  return { code: r.response.statusCode ?? 500, headers: r.response.headers, body: Buffer.concat(chunks) };
}

function rawResponse(socket: Duplex, code: number, headers: IncomingMessage['headers'], body: Buffer): void {
  const type = headers['content-type'] ?? 'text/plain; charset=utf-8';
  socket.write(`HTTP/1.1 ${code} ${STATUS_TEXT[code] ?? ''}\r\ncontent-type: ${type}\r\ncontent-length: ${body.length}\r\ncache-control: no-cache, private\r\nconnection: close\r\n\r\n`);
  socket.end(body);
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' };

/** Joins two connections until either ends. */
function join(a: Duplex, b: Duplex): void {
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

/** Carries the kubelet's SPDY bytes in binary WebSocket messages (the client's TunnelingConnection reads them). */
function tunnel(ws: WebSocket, kubelet: Duplex): void {
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) kubelet.write(data);
  });
  kubelet.on('data', (c: Buffer) => ws.send(c, { binary: true }));
  ws.on('close', () => kubelet.destroy());
  ws.on('error', () => kubelet.destroy());
  kubelet.on('close', () => ws.close(1000));
  kubelet.on('error', () => ws.terminate());
}

/**
 * Serves an upgrade of pods/<name>/portforward after authentication and authorization; false when the path is
 * not one. Errors before the upgrade are thrown for the caller to answer as a Status.
 */
export async function servePortForwardUpgrade(ctx: ApiContext, authorizer: Authorizer | undefined, req: IncomingMessage, socket: Duplex, head: Buffer, url: RequestUrl): Promise<boolean> {
  if (!isPortForwardPath(url.pathname)) return false;
  const t = parseTarget(url.pathname);
  if (t.kind !== 'resource' || t.name === undefined) return false;
  // A WebSocket without the tunneling protocol is refused before the kubelet is asked, so kubectl falls back.
  if (isWebSocket(req) && !headerValues(req, 'sec-websocket-protocol').includes(TUNNEL_PROTOCOL)) throw errors.badRequest('unable to upgrade: the WebSocket subprotocols offered are not supported');
  if (!isWebSocket(req) && (req.headers.upgrade ?? '').toLowerCase() !== 'spdy/3.1') throw errors.badRequest('Upgrade request required');
  const kubelet = await dialKubelet(ctx, t.namespace ?? '', t.name, isWebSocket(req) ? 'GET' : (req.method ?? 'POST'), url.searchParams.toString());
  if (!('socket' in kubelet)) {
    rawResponse(socket, kubelet.code, kubelet.headers, kubelet.body);
    return true;
  }
  if (kubelet.head.length > 0) kubelet.socket.unshift(kubelet.head);
  if (isWebSocket(req)) {
    chosen.set(req, TUNNEL_PROTOCOL);
    delete req.headers['sec-websocket-protocol'];
    wss.handleUpgrade(req, socket, head, (ws) => tunnel(ws, kubelet.socket));
    return true;
  }
  const version = kubelet.headers['x-stream-protocol-version'];
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n${version ? `X-Stream-Protocol-Version: ${String(version)}\r\n` : ''}\r\n`);
  if (head.length > 0) kubelet.socket.write(head);
  join(socket, kubelet.socket);
  return true;
}
