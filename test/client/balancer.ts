// Test helper: a tiny TCP round-robin balancer (what HAProxy does in front of the apiservers), that
// skips backends it cannot connect to and knows which backend each open connection went to.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export class TcpBalancer {
  private readonly server: net.Server;
  private next = 0;
  readonly open = new Map<net.Socket, number>(); // client socket → backend port
  url = '';

  constructor(private backends: number[]) {
    this.server = net.createServer((client) => this.route(client, 0));
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Backend ports with at least one open client connection. */
  activeBackends(): number[] {
    return [...new Set(this.open.values())];
  }

  async stop(): Promise<void> {
    for (const s of this.open.keys()) s.destroy();
    await new Promise((r) => this.server.close(r));
  }

  private route(client: net.Socket, tries: number): void {
    if (tries >= this.backends.length) {
      client.destroy();
      return;
    }
    const port = this.backends[this.next++ % this.backends.length] as number;
    client.pause();
    const upstream = net.connect(port, '127.0.0.1');
    upstream.once('connect', () => {
      this.open.set(client, port);
      client.pipe(upstream).pipe(client);
      client.resume();
      const close = () => {
        this.open.delete(client);
        client.destroy();
        upstream.destroy();
      };
      client.once('close', close);
      upstream.once('close', close);
      client.on('error', close);
      upstream.on('error', close);
    });
    upstream.once('error', () => {
      if (!this.open.has(client)) this.route(client, tries + 1); // dead backend: try the next
    });
  }
}
