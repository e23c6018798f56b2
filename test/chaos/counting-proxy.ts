// Test helper: an HTTP proxy between one component and the apiserver that records every request (method,
// path, X-Kemu-Lease, when it arrived, when it was forwarded, the apiserver's status) and can hold requests
// back — received from the component but not yet forwarded, as a slow network would — and let them go
// later. A held request is forwarded even if the component gave up on it meanwhile: the network does not
// know. Watches and other long responses are streamed through. With stripLeaseHeader the proxy drops
// X-Kemu-Lease on the way (the apiserver then cannot fence: a baseline for benchmarks).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  path: string;
  /** The X-Kemu-Lease header, if any. */
  lease: string | undefined;
  /** Date.now() when the request (with its body) had arrived. */
  receivedAt: number;
  /** Date.now() when it was sent on to the apiserver (undefined while held). */
  forwardedAt?: number;
  /** The apiserver's HTTP status (undefined until answered; 0 when forwarding failed). */
  status?: number;
  /** True when the request was held when it arrived. */
  held: boolean;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const isWrite = (r: ProxiedRequest): boolean => !READS.has(r.method);
export const accepted = (r: ProxiedRequest): boolean => r.status !== undefined && r.status >= 200 && r.status < 300;

export class CountingProxy {
  readonly requests: ProxiedRequest[] = [];
  url = '';
  private readonly server: http.Server;
  private readonly agent = new http.Agent({ keepAlive: true });
  private readonly upstream: URL;
  private holding = false;
  private queue: (() => void)[] = [];
  private readonly pending = new Set<Promise<void>>();

  constructor(
    upstream: string,
    private readonly opts: { stripLeaseHeader?: boolean } = {},
  ) {
    this.upstream = new URL(upstream);
    this.server = http.createServer((req, res) => this.onRequest(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** From now on requests are kept back (recorded, not forwarded) until release(). */
  hold(): void {
    this.holding = true;
  }

  /** Forwards every request held so far, in arrival order, and stops holding. */
  release(): void {
    this.holding = false;
    const q = this.queue;
    this.queue = [];
    for (const f of q) f();
  }

  /** Writes received while holding that have not been forwarded yet. */
  heldWrites(): number {
    return this.requests.filter((r) => r.held && isWrite(r) && r.forwardedAt === undefined).length;
  }

  /** Resolves once every forwarded non-streaming request has its answer (or failed). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
    this.agent.destroy();
  }

  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const lease = req.headers['x-kemu-lease'];
      const rec: ProxiedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        lease: Array.isArray(lease) ? lease.join(',') : lease,
        receivedAt: Date.now(),
        held: this.holding,
      };
      this.requests.push(rec);
      const forward = () => this.forward(req, res, Buffer.concat(chunks), rec);
      if (this.holding) this.queue.push(forward);
      else forward();
    });
    req.on('error', () => undefined);
    res.on('error', () => undefined);
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, rec: ProxiedRequest): void {
    rec.forwardedAt = Date.now();
    const headers: http.OutgoingHttpHeaders = { ...req.headers, host: this.upstream.host };
    if (this.opts.stripLeaseHeader) delete headers['x-kemu-lease'];
    const isWatch = /[?&]watch=(true|1)/.test(rec.path);
    const done = new Promise<void>((resolve) => {
      const up = http.request(
        { host: this.upstream.hostname, port: this.upstream.port, method: rec.method, path: rec.path, headers, agent: this.agent },
        (upRes) => {
          rec.status = upRes.statusCode ?? 0;
          if (!isWatch) resolve();
          if (res.destroyed) {
            upRes.resume();
            return;
          }
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
          res.on('close', () => upRes.destroy());
        },
      );
      up.on('error', () => {
        rec.status ??= 0;
        resolve();
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      // A component that hangs up on a streaming request (a watch) ends it upstream too; a plain request
      // already received is forwarded to the end whatever the component does.
      if (isWatch) res.on('close', () => up.destroy());
      up.end(body);
    });
    if (!isWatch) {
      this.pending.add(done);
      void done.then(() => this.pending.delete(done));
    }
  }
}
