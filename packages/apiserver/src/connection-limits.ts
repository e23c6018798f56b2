// How long a client may hold a connection without letting its request make progress, as the
// kube-apiserver's http.Server and timeout filter bound it:
// - the request line and headers must arrive within the read-header timeout (Kubernetes: 32 s) after the
//   connection opens (the TLS handshake included) or the previous request ends; else the connection is
//   closed without a reply, as Go's server does;
// - a request body may pause at most the read-body timeout (kemu's own, much shorter than a minute) and
//   must be complete within --request-timeout; else a 504 Timeout Status and the connection is closed;
// - a request that is not long-running is answered within --request-timeout (1m) of its arrival, else
//   Kubernetes' 504 "request did not complete within requested timeout";
// - an idle keep-alive connection is closed after 90 s (the kube-apiserver's IdleTimeout), and TCP
//   keep-alive probes find peers that vanished.
import { errors, StatusError, toStatus, type Status } from '@kemu/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerOptions as HttpServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { isLongRunning } from './long-running.ts';

export interface ConnectionLimits {
  /** --request-timeout: receiving and answering a request that is not long-running. 0: no limit. */
  requestTimeoutMs: number;
  /** From the connection (or the end of the previous request) to the end of the headers. 0: no limit. */
  readHeaderTimeoutMs: number;
  /** The longest pause while a request body arrives. 0: no limit. */
  readBodyTimeoutMs: number;
  /** A keep-alive connection with no request in flight is closed after this. */
  idleTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  requestTimeoutMs: 60_000,
  readHeaderTimeoutMs: 32_000,
  readBodyTimeoutMs: 10_000,
  idleTimeoutMs: 90_000,
};

/** Go's net/http turns TCP keep-alive on for accepted connections; the kube-apiserver uses 3 minutes. */
const TCP_KEEPALIVE_MS = 3 * 60_000;

/** Kubernetes' message when the timeout filter gives up on a request. */
export const REQUEST_TIMEOUT_MESSAGE = 'Timeout: request did not complete within requested timeout - context deadline exceeded';

/**
 * Node checks the header and whole-request deadlines on a timer (every 30 s by default, which would
 * let a silent connection live up to twice its deadline): check often enough to keep them close.
 */
function checkingInterval(l: ConnectionLimits): number {
  const shortest = Math.min(...[l.readHeaderTimeoutMs, l.requestTimeoutMs].filter((v) => v > 0));
  return Number.isFinite(shortest) ? Math.min(1_000, Math.max(50, Math.floor(shortest / 4))) : 1_000;
}

/** Options for node's http.Server or https.Server (the latter also bounds the TLS handshake). */
export function nodeServerOptions(l: ConnectionLimits): HttpServerOptions & { handshakeTimeout?: number } {
  const headers = l.requestTimeoutMs > 0 ? Math.min(l.readHeaderTimeoutMs, l.requestTimeoutMs) : l.readHeaderTimeoutMs;
  return {
    headersTimeout: headers,
    requestTimeout: l.requestTimeoutMs,
    keepAliveTimeout: l.idleTimeoutMs,
    connectionsCheckingInterval: checkingInterval(l),
    keepAlive: true,
    keepAliveInitialDelay: TCP_KEEPALIVE_MS,
    ...(headers > 0 ? { handshakeTimeout: headers } : {}),
  };
}

/** Fastify's own settings (it overrides node's after creating the server) and its client-error handler. */
export function fastifyServerOptions(l: ConnectionLimits): {
  keepAliveTimeout: number;
  requestTimeout: number;
  clientErrorHandler: (err: Error & { code?: string }, socket: Socket) => void;
} {
  return { keepAliveTimeout: l.idleTimeoutMs, requestTimeout: l.requestTimeoutMs, clientErrorHandler: onClientError };
}

function rawStatus(status: Status): string {
  const body = JSON.stringify(status);
  return (
    `HTTP/1.1 ${status.code} ${statusText(status.code ?? 500)}\r\ncontent-type: application/json\r\ncache-control: no-cache, private\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}

function statusText(code: number): string {
  return ({ 400: 'Bad Request', 431: 'Request Header Fields Too Large', 504: 'Gateway Timeout' } as Record<number, string>)[code] ?? '';
}

/** Answers with a Status (when nothing was answered yet) and closes the connection. */
function closeWith(socket: Socket, status: Status | undefined): void {
  const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (status && socket.writable && !res?.headersSent) socket.write(rawStatus(status));
  socket.destroy();
}

/** Go's rstAvoidanceDelay: how long a refused connection keeps draining before it is closed. */
const LINGER_MS = 500;

/**
 * Answers and half-closes, then reads and drops what the client still sends for a moment before closing, as
 * Go's server does: destroying a socket with unread input sends a TCP reset, which can make the client (or
 * a balancer in between) lose the answer — a client still writing a 1 MiB header would see a reset, not 431.
 */
function lingerClose(socket: Socket, status: Status): void {
  if (!socket.writable) return void socket.destroy();
  socket.removeAllListeners('data');
  socket.on('data', () => undefined);
  socket.end(rawStatus(status));
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * Node reports a deadline missed while a request arrives as ERR_HTTP_REQUEST_TIMEOUT. Before the headers
 * are complete nothing was asked, so the connection just closes (as Go's server does); with the headers in
 * (a request in flight, its body missing) the answer is the 504 the timeout filter gives.
 */
function onClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = !!(socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return closeWith(socket, inFlight ? toStatus(new StatusError('Timeout', REQUEST_TIMEOUT_MESSAGE)) : undefined);
  if (err.code === 'HPE_HEADER_OVERFLOW') return lingerClose(socket, toStatus(new StatusError('BadRequest', 'Request Header Fields Too Large', undefined, 431)));
  return closeWith(socket, toStatus(errors.badRequest('malformed HTTP request')));
}

function expectsBody(req: FastifyRequest): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * The per-request part: a pause in the body longer than readBodyTimeoutMs ends the request with a 504
 * (fastify reads the body before the handler runs, so the socket's idle timer measures the pause), and a
 * request still unanswered --request-timeout after it arrived gets Kubernetes' 504.
 */
export function installConnectionLimits(app: FastifyInstance, l: ConnectionLimits): void {
  const arrived = new WeakMap<FastifyRequest, number>();
  app.addHook('onRequest', async (req, reply) => {
    arrived.set(req, performance.now());
    const raw = req.raw;
    if (l.readBodyTimeoutMs <= 0 || raw.complete || !expectsBody(req)) return;
    const socket = raw.socket as Socket | null;
    // inject() has no real socket; nothing to time out.
    if (typeof socket?.setTimeout !== 'function') return;
    const onStall = (): void => {
      done();
      closeWith(socket, toStatus(new StatusError('Timeout', `Timeout: no request body received for ${l.readBodyTimeoutMs / 1000}s`)));
    };
    const done = (): void => {
      raw.off('timeout', onStall);
      raw.off('end', done);
      reply.raw.off('close', done);
      if (!socket.destroyed) socket.setTimeout(0);
    };
    // Node emits 'timeout' on an incomplete request before destroying its socket, so the handler answers.
    raw.on('timeout', onStall);
    raw.once('end', done);
    reply.raw.once('close', done);
    socket.setTimeout(l.readBodyTimeoutMs);
  });
  if (l.requestTimeoutMs <= 0) return;
  app.addHook('preHandler', async (req, reply) => {
    if (isLongRunning(req.url, req.method)) return;
    const left = l.requestTimeoutMs - (performance.now() - (arrived.get(req) ?? performance.now()));
    const timer = setTimeout(() => timeOut(reply), Math.max(0, left));
    reply.raw.once('close', () => clearTimeout(timer));
  });
}

function timeOut(reply: FastifyReply): void {
  if (reply.sent || reply.raw.headersSent || reply.raw.destroyed) return;
  const body = Buffer.from(JSON.stringify(toStatus(new StatusError('Timeout', REQUEST_TIMEOUT_MESSAGE))));
  void reply.code(504).header('content-type', 'application/json').send(body);
}
