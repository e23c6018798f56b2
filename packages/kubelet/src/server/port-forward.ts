// The kubelet API's /portForward/{podNamespace}/{podID}[/{uid}] (pkg/kubelet/server's getPortForward, then the
// CRI streaming server's portforward.ServePortForward over SPDY): the connection is upgraded to SPDY/3.1 with
// the portforward.k8s.io stream protocol; the client opens an error stream and a data stream per forwarded
// connection (headers streamType, port, requestID) and each pair is joined to a connection to that port of
// the pod's emulated servers (servers/). A port nothing listens on gets containerd's error text on the error
// stream, as a real node's kubelet relays it; then both streams close.
import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Clock, Logger } from '@kemu/base';
import { connectPod, type PodServerView } from '../servers/pod-servers.ts';
import { SpdySession, type SpdyStream } from '../spdy/session.ts';
import type { LoggedPod } from './container-logs.ts';

export const PORT_FORWARD_PROTOCOL_V1 = 'portforward.k8s.io';
/** The kubelet's --streaming-connection-idle-timeout default is 4h; a pair must be complete within this (DefaultStreamCreationTimeout). */
const STREAM_CREATION_TIMEOUT_MS = 30_000;

export interface PortForwardDeps {
  findPod(namespace: string, name: string): LoggedPod | undefined;
  clock: Clock;
  logger: Logger;
  streamCreationTimeoutMs?: number;
}

/** The pod's running containers, as the emulated servers see them. */
export function serverView(w: LoggedPod, clock: Clock): PodServerView {
  return {
    pod: w.current,
    running: (name) => w.lifecycle?.containers.some((c) => c.name === name && c.state.kind === 'running') ?? false,
    now: () => clock.now(),
  };
}

/** The CRI sandbox ID and network namespace a real node would name in its errors (stable per pod UID). */
export function sandboxOf(uid: string): { id: string; netns: string } {
  const id = createHash('sha256').update(`sandbox/${uid}`).digest('hex');
  const h = createHash('sha256').update(`netns/${uid}`).digest('hex');
  return { id, netns: `/var/run/netns/cni-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}` };
}

/** What containerd reports for a port nothing listens on, wrapped as the streaming server wraps it. */
export function connectionRefused(port: number, uid: string): string {
  const sb = sandboxOf(uid);
  return (
    `error forwarding port ${port} to pod ${sb.id}, uid : failed to execute portforward in network namespace "${sb.netns}": ` +
    `failed to connect to localhost:${port} inside namespace "${sb.id}", IPv4: dial tcp4 127.0.0.1:${port}: connect: connection refused ` +
    `IPv6 dial tcp6 [::1]:${port}: connect: connection refused `
  );
}

function rawReply(socket: Duplex, status: number, text: string, body: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

function headerList(req: http.IncomingMessage, name: string): string[] {
  const v = req.headers[name];
  const all = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return all.flatMap((x) => x.split(',')).map((x) => x.trim()).filter((x) => x !== '');
}

/** The path's namespace and pod, or undefined when it is not a /portForward path. */
export function portForwardTarget(path: string): { namespace: string; pod: string } | undefined {
  const parts = path.split('/').slice(1);
  if (parts[0] !== 'portForward' || (parts.length !== 3 && parts.length !== 4) || parts.slice(1).some((p) => p === '')) return undefined;
  try {
    return { namespace: decodeURIComponent(parts[1] ?? ''), pod: decodeURIComponent(parts[2] ?? '') };
  } catch {
    return undefined;
  }
}

/** Handles an upgrade request for /portForward/…; answers errors on the socket as plain HTTP. */
export function servePortForward(req: http.IncomingMessage, socket: Duplex, head: Buffer, path: string, deps: PortForwardDeps): void {
  const target = portForwardTarget(path);
  if (!target) return rawReply(socket, 404, 'Not Found', '404: Page Not Found');
  const worker = deps.findPod(target.namespace, target.pod);
  if (!worker) return rawReply(socket, 404, 'Not Found', 'pod does not exist');
  // httpstream.Handshake: with protocols offered, one must be portforward.k8s.io.
  const offered = headerList(req, 'x-stream-protocol-version');
  if (offered.length > 0 && !offered.includes(PORT_FORWARD_PROTOCOL_V1)) {
    return rawReply(socket, 403, 'Forbidden', `unable to upgrade: unable to negotiate protocol: client supports ${JSON.stringify(offered)}, server supports ["${PORT_FORWARD_PROTOCOL_V1}"]`);
  }
  const upgrade = (req.headers.upgrade ?? '').toLowerCase();
  if (!headerList(req, 'connection').some((c) => c.toLowerCase() === 'upgrade') || upgrade !== 'spdy/3.1') {
    return rawReply(socket, 400, 'Bad Request', 'unable to upgrade: missing upgrade headers in request: ' + JSON.stringify(req.headers));
  }
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n' +
      (offered.length > 0 ? `X-Stream-Protocol-Version: ${PORT_FORWARD_PROTOCOL_V1}\r\n` : '') +
      `Date: ${new Date(deps.clock.now()).toUTCString()}\r\n\r\n`,
  );
  if (head.length > 0) socket.unshift(head);
  const session = new SpdySession(socket, 'server');
  const uid = worker.current.metadata.uid ?? '';
  const pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream; timer: NodeJS.Timeout }>();
  session.on('stream', (s) => {
    const type = s.header('streamType');
    if (type !== 'error' && type !== 'data') return s.reset();
    // Clients older than the requestID header pair streams by ID: the error stream's, or the data stream's - 2.
    const id = s.header('requestID') ?? String(type === 'data' ? s.id - 2 : s.id);
    let p = pairs.get(id);
    if (!p) {
      const timer = setTimeout(() => {
        const q = pairs.get(id);
        pairs.delete(id);
        q?.error?.reset();
        q?.data?.reset();
      }, deps.streamCreationTimeoutMs ?? STREAM_CREATION_TIMEOUT_MS);
      timer.unref();
      p = { timer };
      pairs.set(id, p);
    }
    if (p[type]) return s.reset();
    p[type] = s;
    if (p.error && p.data) {
      clearTimeout(p.timer);
      pairs.delete(id);
      forward(p.data, p.error, deps.findPod(target.namespace, target.pod) ?? worker, uid, deps);
    }
  });
  session.on('close', () => {
    for (const p of pairs.values()) clearTimeout(p.timer);
    pairs.clear();
  });
}

function forward(data: SpdyStream, error: SpdyStream, worker: LoggedPod, uid: string, deps: PortForwardDeps): void {
  const port = Number(data.header('port'));
  // The error stream carries nothing from the client; reading it lets its FIN arrive.
  error.resume();
  const conn = Number.isInteger(port) && port > 0 && port < 65536 ? connectPod(serverView(worker, deps.clock), port) : undefined;
  if (!conn) {
    error.end(Number.isInteger(port) && port > 0 ? connectionRefused(port, uid) : `error forwarding port ${data.header('port') ?? ''} to pod ${sandboxOf(uid).id}, uid : invalid port`);
    data.end();
    return;
  }
  data.pipe(conn);
  conn.pipe(data);
  // The pod side closing ends both streams, as the streaming server's deferred Close calls do.
  conn.on('end', () => error.end());
  conn.on('close', () => {
    if (!error.writableEnded) error.end();
    if (!data.writableEnded) data.end();
  });
  data.on('close', () => conn.destroy());
  conn.on('error', () => undefined);
  data.on('error', () => conn.destroy());
}
