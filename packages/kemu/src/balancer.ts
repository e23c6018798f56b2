// The built-in TCP load balancer, for machines without HAProxy. It behaves like the HAProxy config kemu
// generates: round-robin over the backends that pass `GET /readyz` (checked every interval, marked down after
// `fall` failures and up after `rise` successes), a dead backend's sessions are cut so clients reconnect
// elsewhere (on-marked-down shutdown-sessions), and a failed connect is retried on the next backend (redispatch).
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
  private server: net.Server | undefined;
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

  async listen(): Promise<number> {
    await this.checkAll();
    this.timer = setInterval(() => void this.checkAll(), this.opts.intervalMs);
    const server = net.createServer((client) => this.accept(client));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => resolve());
    });
    const addr = server.address();
    return typeof addr === 'object' && addr ? addr.port : this.opts.port;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const c of this.clients) c.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async checkAll(): Promise<void> {
    await Promise.all(this.states.map((s) => this.check(s)));
  }

  private async check(s: BackendState): Promise<void> {
    const r = await probe(`http://${s.b.host}:${s.b.port}${this.opts.healthPath}`, Math.max(500, this.opts.intervalMs));
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
    s.streak = 0;
    s.up = r.ok;
    const why = r.ok ? '' : ` (${r.error ?? `status ${r.status}`})`;
    this.opts.logger?.info({ backend: s.b.name, up: s.up }, `backend ${s.b.name} is ${s.up ? 'UP' : 'DOWN'}${why}`);
    if (!s.up) for (const sock of s.sessions) sock.destroy();
  }

  /** Backends to try for a new connection: healthy ones in round-robin order, then (if none) all of them. */
  private candidates(): BackendState[] {
    const n = this.states.length;
    const start = this.next;
    this.next = (this.next + 1) % n;
    const order = Array.from({ length: n }, (_, i) => this.states[(start + i) % n] as BackendState);
    const healthy = order.filter((s) => s.up);
    return healthy.length > 0 ? healthy : order;
  }

  private accept(client: net.Socket): void {
    this.clients.add(client);
    client.pause();
    client.on('error', () => undefined);
    client.once('close', () => this.clients.delete(client));
    void this.connect(client, this.candidates(), 0);
  }

  private async connect(client: net.Socket, list: BackendState[], i: number): Promise<void> {
    const s = list[i];
    if (!s || client.destroyed) {
      client.destroy();
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
    upstream.on('error', () => {
      clearTimeout(timer);
      if (failed) return;
      failed = true;
      if (!connected) void this.connect(client, list, i + 1);
      else client.destroy();
    });
  }
}
