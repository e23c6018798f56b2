// NodePorts: for every Service port with a nodePort, a TCP listener on each NodePort address (flags.ts) whose
// connections are forwarded, one endpoint per connection in turn as kube-proxy's rules do, to the emulated
// server of a ready endpoint (on another node: through the pod network). A Service without reachable endpoints resets the connection (kube-proxy's REJECT).
// Under externalTrafficPolicy Local a node without a ready endpoint of its own drops the connection (kube-proxy's
// DROP: the client hears nothing until it gives up); the client's address keys sessionAffinity ClientIP. A
// LoadBalancer's healthCheckNodePort answers kube-proxy's health check (health-check.ts) on the same addresses.
// Listeners follow the Services: added when a nodePort appears, closed when it goes.
import http from 'node:http';
import net from 'node:net';
import type { Logger } from '@kemu/base';
import type { Duplex } from 'node:stream';
import type { ClusterNetwork } from './cluster-network.ts';
import { healthCheckAnswer, healthCheckService, localEndpointCount } from './health-check.ts';
import { splice } from './pod-network.ts';
import type { ServiceTable } from './service-table.ts';

/** How long a dropped connection is held before it is closed (Linux gives up a connect after ~127 s of SYN retries). */
const DROP_HOLD_MS = 130_000;

export class NodePorts {
  /** Listeners by `address:port`. */
  private readonly listeners = new Map<string, net.Server>();
  /** Binds that failed (logged once each). */
  private readonly failed = new Set<string>();
  private scheduled = false;
  private stopped = false;
  /** Answers health checks on the connections of healthCheckNodePorts. */
  private readonly health: http.Server;

  constructor(
    private readonly table: ServiceTable,
    private readonly network: ClusterNetwork,
    private readonly addresses: readonly string[],
    private readonly logger: Logger,
    /** This node (the health check counts its endpoints). */
    private readonly nodeName?: string,
  ) {
    this.health = http.createServer((req, res) => {
      const s = healthCheckService(this.table, req.socket.localPort ?? 0);
      if (!s) return void res.destroy();
      const a = healthCheckAnswer(s, localEndpointCount(this.table, s, this.nodeName));
      res.writeHead(a.status, { ...a.headers, 'Content-Length': String(Buffer.byteLength(a.body)) });
      res.end(a.body);
    });
  }

  /** The NodePorts the Services ask for now. */
  wanted(): Set<number> {
    const out = new Set<number>();
    for (const s of this.table.allServices()) {
      for (const p of s.spec?.ports ?? []) if (p.nodePort && (p.protocol ?? 'TCP') === 'TCP') out.add(p.nodePort);
      if (s.spec?.healthCheckNodePort && healthCheckService(this.table, s.spec.healthCheckNodePort)) out.add(s.spec.healthCheckNodePort);
    }
    return out;
  }

  /** Looks at the Services again soon (after a burst of watch events, once). */
  changed(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.sync();
    });
  }

  sync(): void {
    if (this.stopped) return;
    const ports = this.wanted();
    for (const [k, srv] of this.listeners) {
      if (!ports.has(Number(k.slice(k.lastIndexOf(':') + 1)))) {
        srv.close();
        this.listeners.delete(k);
      }
    }
    for (const port of ports) for (const address of this.addresses) this.listen(address, port);
  }

  /** Listening addresses, as `address:port`. */
  bound(): string[] {
    return [...this.listeners.keys()];
  }

  private listen(address: string, port: number): void {
    const k = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
    if (this.listeners.has(k) || this.failed.has(k)) return;
    const srv = net.createServer((socket) => this.forward(port, socket));
    this.listeners.set(k, srv);
    srv.on('error', (e: NodeJS.ErrnoException) => {
      // kube-proxy logs a port it cannot hold open and runs on.
      this.logger.error({ address, port, err: e.code ?? String(e) }, 'can\'t open port, skipping it');
      this.listeners.delete(k);
      this.failed.add(k);
    });
    srv.listen(port, address);
  }

  private forward(nodePort: number, socket: net.Socket): void {
    socket.on('error', () => socket.destroy());
    if (healthCheckService(this.table, nodePort)) return void this.health.emit('connection', socket);
    // Bytes the client sends before the endpoint's connection is open wait in the socket.
    socket.pause();
    const t = this.network.nodePortTarget(nodePort, (socket.remoteAddress ?? '').replace(/^::ffff:/, ''));
    if (t?.drop) return this.hold(socket);
    void (t ? this.network.connect(t) : Promise.resolve(undefined)).then(
      (conn) => this.join(socket, conn),
      () => this.join(socket, undefined),
    );
  }

  /** A dropped connection: nothing is read or answered; it is let go after a SYN-retry's worth of time. */
  private hold(socket: net.Socket): void {
    const timer = setTimeout(() => socket.destroy(), DROP_HOLD_MS);
    timer.unref();
    socket.on('close', () => clearTimeout(timer));
  }

  private join(socket: net.Socket, conn: Duplex | undefined): void {
    if (!conn || socket.destroyed) {
      conn?.destroy();
      if (!socket.destroyed) socket.resetAndDestroy();
      return;
    }
    // Replies are written in pieces (headers, then body): without this, Nagle holds the body for the client's delayed ACK.
    socket.setNoDelay(true);
    splice(socket, conn);
    socket.resume();
  }

  stop(): void {
    this.stopped = true;
    this.health.closeAllConnections();
    for (const srv of this.listeners.values()) srv.close();
    this.listeners.clear();
  }
}
