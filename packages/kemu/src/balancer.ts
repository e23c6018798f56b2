// The built-in TCP load balancer, for machines without HAProxy. It behaves like the HAProxy config kemu
// generates: round-robin over the backends that pass `GET /readyz` (checked every interval, marked down after
// `fall` failures and up after `rise` successes), a dead backend's sessions are cut so clients reconnect
// elsewhere (on-marked-down shutdown-sessions), and a failed connect is retried on the next backend (redispatch).
// With no backend up it refuses new connections, as HAProxy's `tcp-request connection reject if { nbsrv(...)
// eq 0 }` does: its port is closed until a backend passes a check again, so a client's connect fails with
// ECONNREFUSED (nothing was sent) instead of a connection that takes the request and closes without an answer
// (a write that may or may not have happened). A connect refused by a backend marks it down at once (HAProxy's
// `observe layer4 error-limit 1 on-error mark-down`), so a dead replica leaves the rotation without waiting
// for `fall` checks.
import net from 'node:net';
import type { Logger } from '@kemu/base';
import { probe } from './probe.ts';

export interface Backend {
  name: string;
  host: string;
  port: number;
}

export interface BalancerOptions {
  host: string;
  port: number;
  backends: Backend[];
  healthPath?: string;
  /** Check health over TLS without verifying the server (HAProxy's `check-ssl verify none`). */
  checkSsl?: boolean;
  intervalMs?: number;
  fall?: number;
  rise?: number;
  connectTimeoutMs?: number;
  logger?: Logger;
}

interface BackendState {
  b: Backend;
  up: boolean;
  /** Consecutive results in the direction opposite to `up`. */
  streak: number;
  checked: boolean;
  sessions: Set<net.Socket>;
}

export class Balancer {
  private readonly states: BackendState[];
  private next = 0;
  /** The listening socket; undefined while no backend is up. */
  private server: net.Server | undefined;
  private port = 0;
  private opening: Promise<void> | undefined;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly clients = new Set<net.Socket>();
  private readonly opts: Required<Omit<BalancerOptions, 'logger'>> & { logger: Logger | undefined };

  constructor(o: BalancerOptions) {
    if (o.backends.length === 0) throw new Error('balancer needs at least one backend');
    this.opts = {
      host: o.host,
      port: o.port,
      backends: o.backends,
      healthPath: o.healthPath ?? '/readyz',
      checkSsl: o.checkSsl ?? false,
      intervalMs: o.intervalMs ?? 1000,
      fall: o.fall ?? 2,
      rise: o.rise ?? 1,
      connectTimeoutMs: o.connectTimeoutMs ?? 2000,
      logger: o.logger,
    };
    this.states = o.backends.map((b) => ({ b, up: false, streak: 0, checked: false, sessions: new Set() }));
  }

  /** Names of the backends currently in rotation. */
  upBackends(): string[] {
    return this.states.filter((s) => s.up).map((s) => s.b.name);
  }

  /** Binds (so a port in use fails here, and port 0 gets its number), then listens while a backend is up. */
  async listen(): Promise<number> {
    await this.checkAll();
    await this.open();
    this.timer = setInterval(() => void this.checkAll().then(() => this.syncListener()), this.opts.intervalMs);
    await this.syncListener();
    return this.port;
  }

  /** True while the port accepts connections (some backend is up). */
  accepting(): boolean {
    return this.server !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.opening;
    for (const c of this.clients) c.destroy();
    const server = this.server;
    this.server = undefined;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  private async open(): Promise<void> {
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port || this.opts.port, this.opts.host, () => resolve());
    });
    const addr = server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : this.opts.port;
    this.server = server;
  }

  /** Closes the port while no backend is up (connects are refused) and opens it again once one is. */
  private async syncListener(): Promise<void> {
    if (this.closed) return;
    const anyUp = this.states.some((s) => s.up);
    if (!anyUp && this.server) {
      this.server.close();
      this.server = undefined;
      this.opts.logger?.warn({ port: this.port }, `no backend is up: refusing connections on ${this.opts.host}:${this.port}`);
    } else if (anyUp && !this.server && !this.opening) {
      this.opening = this.open().then(
        () => this.opts.logger?.info({ port: this.port }, `a backend is up: accepting connections on ${this.opts.host}:${this.port} again`),
        (e: unknown) => this.opts.logger?.error({ err: String(e) }, `cannot listen on ${this.opts.host}:${this.port} again; retrying`),
      );
      await this.opening;
      this.opening = undefined;
      if (this.closed) {
        // close() ran meanwhile (TypeScript cannot see the await changed this.server).
        (this.server as net.Server | undefined)?.close();
        this.server = undefined;
      } else if (!this.states.some((s) => s.up)) await this.syncListener(); // all went down meanwhile
    }
  }

  private async checkAll(): Promise<void> {
    await Promise.all(this.states.map((s) => this.check(s)));
  }

  private async check(s: BackendState): Promise<void> {
    const r = await probe(`${this.opts.checkSsl ? 'https' : 'http'}://${s.b.host}:${s.b.port}${this.opts.healthPath}`, Math.max(500, this.opts.intervalMs));
    if (!s.checked) {
      // The first check decides at once, as HAProxy does for a fresh server.
      s.checked = true;
      s.up = r.ok;
      this.opts.logger?.info({ backend: s.b.name, up: s.up }, `backend ${s.b.name} is ${s.up ? 'UP' : 'DOWN'}`);
      return;
    }
    if (r.ok === s.up) {
      s.streak = 0;
      return;
    }
    s.streak++;
    const needed = s.up ? this.opts.fall : this.opts.rise;
    if (s.streak < needed) return;
    if (r.ok) {
      s.streak = 0;
      s.up = true;
      this.opts.logger?.info({ backend: s.b.name, up: true }, `backend ${s.b.name} is UP`);
    } else this.markDown(s, r.error ?? `status ${r.status}`);
  }

  private markDown(s: BackendState, why: string): void {
    s.streak = 0;
    if (!s.up) return;
    s.up = false;
    this.opts.logger?.info({ backend: s.b.name, up: false }, `backend ${s.b.name} is DOWN (${why})`);
    for (const sock of s.sessions) sock.destroy();
  }

  /** Healthy backends in round-robin order, for a new connection (none when every backend is down). */
  private candidates(): BackendState[] {
    const n = this.states.length;
    const start = this.next;
    this.next = (this.next + 1) % n;
    return Array.from({ length: n }, (_, i) => this.states[(start + i) % n] as BackendState).filter((s) => s.up);
  }

  private accept(client: net.Socket): void {
    client.on('error', () => undefined);
    const list = this.candidates();
    if (list.length === 0) {
      // Accepted just before the port closed: reset, so the client sees it refused rather than answered.
      client.resetAndDestroy();
      return;
    }
    this.clients.add(client);
    client.pause();
    client.once('close', () => this.clients.delete(client));
    void this.connect(client, list, 0);
  }

  private async connect(client: net.Socket, list: BackendState[], i: number): Promise<void> {
    const s = list[i];
    if (!s || client.destroyed) {
      // Every backend refused: nothing was forwarded, so reset rather than close as if answered.
      if (!client.destroyed) client.resetAndDestroy();
      return;
    }
    const upstream = net.connect({ host: s.b.host, port: s.b.port });
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    let connected = false;
    const timer = setTimeout(() => upstream.destroy(new Error('connect timeout')), this.opts.connectTimeoutMs);
    upstream.once('connect', () => {
      connected = true;
      clearTimeout(timer);
      s.sessions.add(upstream);
      upstream.once('close', () => s.sessions.delete(upstream));
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    let failed = false;
    upstream.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (failed) return;
      failed = true;
      if (connected) {
        client.destroy();
        return;
      }
      if (e.code === 'ECONNREFUSED') {
        this.markDown(s, 'connection refused');
        void this.syncListener();
      }
      void this.connect(client, list, i + 1);
    });
  }
}
