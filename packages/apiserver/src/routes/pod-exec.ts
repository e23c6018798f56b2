// pods/exec and pods/attach, as kube-apiserver's ExecREST/AttachREST: the query becomes PodExecOptions /
// PodAttachOptions, streamLocation picks the container and the node's kubelet (its errors: 400 `container x
// is not valid for pod y`, `a container name must be specified for pod y, choose one of: [a b]`, `pod y does
// not have a host assigned`), and the upgrade request is tunnelled to the kubelet's /exec|/attach/<ns>/<pod>/
// <container> with the apiserver's kubelet client certificate (UpgradeAwareHandler): the kubelet's answer, a
// 101 and the WebSocket stream or its error, goes back to the client byte for byte. A request that does not
// ask to upgrade is refused with 400 `Upgrade request required`. The kubelet serves WebSocket only, so a
// SPDY/3.1 upgrade is refused there (see the kubelet's server/streaming.ts).
import tls from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { errors, R, type KubeObject } from '@kemu/api';
import type { ApiContext } from '../context.ts';
import type { KubeletClient } from '../kubelet-client/client.ts';
import { joinHostPort } from '../kubelet-client/connection-info.ts';
import { boolParam, type ApiReply, type ApiRequest } from './request.ts';

export type StreamKind = 'exec' | 'attach';

interface Named {
  name?: string;
}

/** streamLocation's container choice (it differs from the log's in naming init containers separately). */
export function streamContainer(pod: KubeObject, container: string): string {
  const spec = (pod.spec ?? {}) as { initContainers?: Named[]; containers?: Named[]; ephemeralContainers?: Named[] };
  const name = pod.metadata.name ?? '';
  const names = (list: Named[] | undefined) => (list ?? []).map((c) => c.name ?? '').join(' ');
  if (container === '') {
    const containers = spec.containers ?? [];
    if (containers.length === 1) return containers[0]?.name ?? '';
    if (containers.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
    let msg = `a container name must be specified for pod ${name}, choose one of: [${names(spec.containers)}]`;
    if ((spec.initContainers ?? []).length > 0) msg += ` or one of the init containers: [${names(spec.initContainers)}]`;
    throw errors.badRequest(msg);
  }
  const all = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
  if (!all.some((c) => c.name === container)) throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/** streamParams: the options the kubelet reads, as "1", then each command word; url.Values.Encode sorts keys. */
export function kubeletStreamQuery(kind: StreamKind, q: URLSearchParams): string {
  const p: [string, string][] = [];
  for (const k of ['stderr', 'stdin', 'stdout', 'tty']) if (boolParam(q, k)) p.push([k, '1']);
  if (kind === 'exec') for (const c of q.getAll('command')) p.push(['command', c]);
  p.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return new URLSearchParams(p).toString();
}

/** Where the stream goes: the kubelet URL for the pod's container. Throws the StatusErrors Kubernetes returns. */
export async function streamLocation(ctx: ApiContext, kind: StreamKind, namespace: string | undefined, name: string, q: URLSearchParams): Promise<URL> {
  const pod = await ctx.registry.get(R.pods, namespace, name);
  const container = streamContainer(pod, q.get('container') ?? '');
  const nodeName = ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? '';
  if (nodeName === '') throw errors.badRequest(`pod ${name} does not have a host assigned`);
  const node = await ctx.registry.get(R.nodes, undefined, nodeName);
  const kubelet = ctx.kubeletClient;
  return kubelet.url(kubelet.connectionInfo(node), `/${kind}/${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}/${container}`, kubeletStreamQuery(kind, q));
}

/** A plain (not upgrading) request: the location is checked, then refused as UpgradeAwareHandler does. */
export async function podStream(ctx: ApiContext, req: ApiRequest, kind: StreamKind): Promise<ApiReply> {
  await streamLocation(ctx, kind, req.target.namespace, req.target.name ?? '', req.query);
  throw errors.badRequest('Upgrade request required');
}

/** Length of the first WebSocket frame in `b` (server frames are unmasked, but a mask is allowed for), or undefined if incomplete. */
export function frameLength(b: Buffer): number | undefined {
  if (b.length < 2) return undefined;
  const masked = ((b[1] ?? 0) & 0x80) !== 0;
  let len = (b[1] ?? 0) & 0x7f;
  let at = 2;
  if (len === 126) {
    if (b.length < 4) return undefined;
    len = b.readUInt16BE(2);
    at = 4;
  } else if (len === 127) {
    if (b.length < 10) return undefined;
    len = Number(b.readBigUInt64BE(2));
    at = 10;
  }
  const total = at + (masked ? 4 : 0) + len;
  return b.length >= total ? total : undefined;
}

/**
 * Passes the kubelet's answer on as it came: the response head in one write, then each WebSocket frame in its
 * own. Clients that poll the socket for one frame at a time (the Python client's ws_client) would otherwise
 * wait forever on frames already decrypted into their TLS buffer when several arrive in one record.
 */
export class FrameRelay {
  private buf: Buffer = Buffer.alloc(0);
  private inHead = true;
  private passthrough = false;

  constructor(private readonly out: (b: Buffer) => void) {}

  push(chunk: Buffer): void {
    if (this.passthrough) return this.out(chunk);
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    if (this.inHead) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buf.subarray(0, end + 4);
      this.out(head);
      this.buf = this.buf.subarray(end + 4);
      this.inHead = false;
      // Not a WebSocket (an error reply): the rest goes as it comes.
      if (!/^HTTP\/1\.1 101/.test(head.toString('latin1')) || !/upgrade:\s*websocket/i.test(head.toString('latin1'))) {
        this.passthrough = true;
        if (this.buf.length) this.out(this.buf);
        return;
      }
    }
    for (let n = frameLength(this.buf); n !== undefined; n = frameLength(this.buf)) {
      this.out(this.buf.subarray(0, n));
      this.buf = this.buf.subarray(n);
    }
  }
}

/** Request headers passed to the kubelet: the upgrade's own, not the client's credentials. */
const PASSED = ['upgrade', 'connection', 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-protocol', 'sec-websocket-extensions', 'x-stream-protocol-version'];

/**
 * Tunnels an upgrade request to the kubelet at `url` and splices the two sockets. `fail` answers the client
 * when the kubelet cannot be reached (a 500 Status with Go's dial error, as the REST path).
 */
export function tunnelUpgrade(kubelet: KubeletClient, req: IncomingMessage, client: Duplex, head: Buffer, url: URL, fail: (message: string) => void): void {
  const c = kubelet.config;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const upstream = tls.connect({
    host,
    port: Number(url.port),
    servername: /^[\d.]+$|:/.test(host) ? undefined : host,
    ...(c.cert ? { cert: c.cert } : {}),
    ...(c.key ? { key: c.key } : {}),
    ...(c.ca ? { ca: c.ca } : {}),
    rejectUnauthorized: c.ca !== undefined && !boolParam(url.searchParams, 'insecureSkipTLSVerifyBackend'),
  });
  let connected = false;
  const timer = c.dialTimeoutMs > 0 ? setTimeout(() => upstream.destroy(new Error(`dial tcp ${joinHostPort(host, url.port)}: i/o timeout`)), c.dialTimeoutMs) : undefined;
  upstream.once('secureConnect', () => {
    connected = true;
    clearTimeout(timer);
    const lines = [`${req.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, 'User-Agent: kube-apiserver'];
    for (const h of PASSED) {
      const v = req.headers[h];
      if (v !== undefined) lines.push(`${h}: ${Array.isArray(v) ? v.join(', ') : v}`);
    }
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) upstream.write(head);
    // One write at a time, each after the last is flushed: a TLS socket given several at once sends them in one record.
    const queue: Buffer[] = [];
    let writing = false;
    let ended = false;
    const next = (): void => {
      const b = queue.shift();
      writing = b !== undefined && !client.destroyed;
      if (b && writing) client.write(b, () => next());
      else if (ended) client.end();
    };
    const finish = () => {
      ended = true;
      if (!writing) client.end();
    };
    upstream.on('end', finish);
    upstream.on('close', finish);
    const relay = new FrameRelay((b) => {
      queue.push(b);
      if (!writing) next();
    });
    upstream.on('data', (b: Buffer) => relay.push(b));
    client.pipe(upstream);
  });
  upstream.on('error', (e: Error) => {
    clearTimeout(timer);
    if (!connected) fail(`error dialing backend: ${e.message}`);
    else client.destroy();
  });
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
}
