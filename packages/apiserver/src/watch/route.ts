// Serving a watch over HTTP (chunked, one JSON event per line) or a WebSocket (one event per message)
// from the same URL, with the query parameters Kubernetes clients send.
import { errors, type ResourceInfo } from '@kemu/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { WebSocket } from 'ws';
import { printerFor, type ApiContext } from '../context.ts';
import { buildFilter } from '../registry/filter.ts';
import { boolParam, intParam } from '../routes/request.ts';
import type { ResourceTarget } from '../routes/request.ts';
import { parseIncludeObject, wantsTable } from '../table.ts';
import type { WatchParams } from './hub.ts';
import type { SessionOptions, WatchSink } from './session.ts';


export interface PreparedWatch {
  params: WatchParams;
  session: SessionOptions;
  resource: ResourceInfo;
}

/** Validates everything before the response starts, so bad input is an ordinary Status reply. */
export function prepareWatch(ctx: ApiContext, t: ResourceTarget, q: URLSearchParams, accept: string | undefined): PreparedWatch {
  const r = t.resource;
  if (!r.verbs.includes('watch')) throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
  let fieldSelector = q.get('fieldSelector');
  if (t.name !== undefined) {
    // /watch/<plural>/<name> (legacy) watches one object.
    fieldSelector = [`metadata.name=${t.name}`, fieldSelector].filter((x) => x).join(',');
  }
  const filter = buildFilter(r, ctx.ext, q.get('labelSelector'), fieldSelector);
  const timeoutSeconds = intParam(q, 'timeoutSeconds');
  const timeoutMs = timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : ctx.minRequestTimeoutMs * (1 + Math.random());
  const sendInitialEvents = boolParam(q, 'sendInitialEvents');
  const params: WatchParams = {
    resourceVersion: q.get('resourceVersion') ?? '',
    resourceVersionMatch: q.get('resourceVersionMatch') ?? '',
    sendInitialEvents,
    timeoutMs,
  };
  const session: SessionOptions = {
    resource: r,
    bookmarks: boolParam(q, 'allowWatchBookmarks') === true,
    maxBufferedBytes: 0, // set by the hub
  };
  if (t.namespace !== undefined) session.namespace = t.namespace;
  if (filter) session.filter = filter;
  if (wantsTable(accept)) session.table = { printer: printerFor(ctx, r), include: parseIncludeObject(q.get('includeObject')), now: () => ctx.clock.now() };
  return { params, session, resource: r };
}

/**
 * After a graceful end (timeoutSeconds, a rebuilt cache, shutdown) a client has this long to take the rest
 * of its stream; one that does not read is then cut off, so its unsent output is not held for good.
 */
export const END_GRACE_MS = 10_000;

/**
 * Drops a connection whose client does not read. A plain TCP socket is reset: with a FIN the kernel
 * would keep what the client never took (megabytes per connection) as an orphan for minutes. A TLS
 * socket cannot be reset safely from node, so it is closed and its kernel buffers age out.
 */
export function abortSocket(socket: Socket | null | undefined): void {
  if (!socket || socket.destroyed) return;
  if (socket instanceof TLSSocket) socket.destroy();
  else socket.resetAndDestroy();
}

function destroyAfterGrace(destroy: () => void, onClose: (cb: () => void) => void): void {
  const timer = setTimeout(destroy, END_GRACE_MS);
  timer.unref();
  onClose(() => clearTimeout(timer));
}

function peerOf(socket: Socket | null | undefined): string {
  return socket?.remoteAddress !== undefined ? `${socket.remoteAddress}:${socket.remotePort ?? ''}` : '';
}

export function httpSink(res: ServerResponse): WatchSink {
  const live = (): boolean => !res.writableEnded && !res.destroyed;
  return {
    write: (buf) => {
      if (!live()) return;
      if (!Array.isArray(buf)) {
        res.write(buf);
        return;
      }
      res.cork();
      for (const b of buf) res.write(b);
      res.uncork();
    },
    buffered: () => res.writableLength,
    end: () => {
      if (!live()) return;
      res.end();
      destroyAfterGrace(() => abortSocket(res.socket), (cb) => res.once('close', cb));
    },
    destroy: () => {
      abortSocket(res.socket);
      res.destroy();
    },
    onClose: (cb) => {
      res.on('close', cb);
    },
    peer: () => peerOf(res.socket),
  };
}

/**
 * Writes the response straight to the socket: the head once, then pre-framed chunks shared by every
 * watcher of an event (the per-write cost of ServerResponse dominates fan-out to 1,000 watchers).
 * The connection closes with the stream (Connection: close), as a finished watch is rarely reused.
 */
export function socketSink(socket: Socket): WatchSink {
  let ended = false;
  return {
    framed: true,
    write: (buf) => {
      if (ended || socket.destroyed) return;
      if (!Array.isArray(buf)) {
        socket.write(buf);
        return;
      }
      // One writev for the batch; each buffer stays the shared one.
      socket.cork();
      for (const b of buf) socket.write(b);
      socket.uncork();
    },
    buffered: () => socket.writableLength,
    end: () => {
      if (ended) return;
      ended = true;
      if (socket.destroyed) return;
      socket.end('0\r\n\r\n');
      destroyAfterGrace(() => abortSocket(socket), (cb) => socket.once('close', cb));
    },
    destroy: () => {
      ended = true;
      abortSocket(socket);
    },
    onClose: (cb) => {
      socket.on('close', cb);
    },
    peer: () => peerOf(socket),
  };
}

export function wsSink(ws: WebSocket, socket?: Socket): WatchSink {
  // One event per message: a buffer holds one or more newline-terminated lines, each sent as a text frame
  // that references the shared line rather than a copy of it.
  const sendLines = (buf: Buffer): void => {
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      ws.send(buf.subarray(start, nl), { binary: false });
      start = nl + 1;
    }
  };
  return {
    write: (buf) => {
      if (ws.readyState !== ws.OPEN) return;
      if (Array.isArray(buf)) for (const b of buf) sendLines(b);
      else sendLines(buf);
    },
    buffered: () => ws.bufferedAmount,
    end: () => {
      // ws gives the peer 30 s to answer the close frame, then drops the connection itself.
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000);
    },
    destroy: () => {
      abortSocket(socket);
      ws.terminate();
    },
    onClose: (cb) => {
      ws.on('close', cb);
    },
    peer: () => peerOf(socket),
  };
}

/** Emitted on the ServerResponse when a watch wrote its headers straight to the socket (for the audit stage). */
export const RAW_HEADERS_SENT = 'kemu:raw-headers-sent';

export const WATCH_HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'no-cache, private',
  'transfer-encoding': 'chunked',
} as const;

export async function serveHttpWatch(ctx: ApiContext, prepared: PreparedWatch, res: ServerResponse, begin: () => void): Promise<void> {
  const socket = res.socket;
  const raw = socket instanceof Socket;
  const sink = raw ? socketSink(socket) : httpSink(res);
  const session = await ctx.hub.start(prepared.params, prepared.session, sink, () => {
    begin();
    if (raw) {
      // Headers that filters set on the response (Audit-Id) go out too.
      const extra = Object.entries(res.getHeaders())
        .filter(([k, v]) => v !== undefined && !(k in WATCH_HEADERS) && k !== 'date' && k !== 'connection')
        .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}\r\n`)
        .join('');
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncache-control: no-cache, private\r\ntransfer-encoding: chunked\r\n` +
          `${extra}date: ${new Date().toUTCString()}\r\nconnection: close\r\n\r\n`,
      );
      res.emit(RAW_HEADERS_SENT);
    } else {
      res.writeHead(200, WATCH_HEADERS);
      res.flushHeaders();
    }
  });
  trackWatcher(ctx, prepared.resource, session);
}

export function trackWatcher(ctx: ApiContext, r: ResourceInfo, session: { isClosed: boolean; onClose(cb: () => void): void }): void {
  if (session.isClosed) return;
  ctx.metrics.watchers.inc({ resource: r.plural });
  session.onClose(() => ctx.metrics.watchers.dec({ resource: r.plural }));
}

export function isWatchRequest(req: IncomingMessage): boolean {
  return /[?&]watch=(true|1)(&|$)/.test(req.url ?? '') || /^\/apis?\/.*\/watch\//.test(req.url ?? '');
}
