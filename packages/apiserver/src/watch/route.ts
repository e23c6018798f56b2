// Serving a watch over HTTP (chunked, one JSON event per line) or a WebSocket (one event per message)
// from the same URL, with the query parameters Kubernetes clients send.
import { errors, type ResourceInfo } from '@kemu/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
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

export function httpSink(res: ServerResponse): WatchSink {
  return {
    write: (buf) => {
      if (!res.writableEnded && !res.destroyed) res.write(buf);
    },
    buffered: () => res.writableLength,
    end: () => {
      if (!res.writableEnded) res.end();
    },
    onClose: (cb) => {
      res.on('close', cb);
    },
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
      if (!ended && !socket.destroyed) socket.write(buf);
    },
    buffered: () => socket.writableLength,
    end: () => {
      if (ended) return;
      ended = true;
      if (!socket.destroyed) socket.end('0\r\n\r\n');
    },
    onClose: (cb) => {
      socket.on('close', cb);
    },
  };
}

export function wsSink(ws: WebSocket): WatchSink {
  return {
    write: (buf) => {
      if (ws.readyState !== ws.OPEN) return;
      // One event per message: a batch is several newline-terminated lines.
      let start = 0;
      for (;;) {
        const nl = buf.indexOf(10, start);
        if (nl < 0) break;
        ws.send(buf.subarray(start, nl).toString('utf8'));
        start = nl + 1;
      }
    },
    buffered: () => ws.bufferedAmount,
    end: () => {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000);
    },
    onClose: (cb) => {
      ws.on('close', cb);
    },
  };
}

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
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncache-control: no-cache, private\r\ntransfer-encoding: chunked\r\n` +
          `date: ${new Date().toUTCString()}\r\nconnection: close\r\n\r\n`,
      );
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
