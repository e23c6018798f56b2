// The pod network between kubelet processes. Each kubelet listens on its node's InternalIP on the pod-network
// port (--pod-network-port, 4789 as VXLAN's) and carries a connection "to pod IP:port" to the emulated server
// of a pod it runs; kube-proxy reaches the endpoints other processes run through their node's listener. The
// frame is one line, `KEMU-POD <ip> <port>\n`, then the connection's bytes both ways. A pod this node does not
// run, or a port nothing listens on, resets the connection (an unroutable packet). Unauthenticated, as a real
// pod network is: anything that reaches the port reaches the pods.
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { R, type Node } from '@kemu/api';
import type { Logger } from '@kemu/base';
import type { RestClient } from '@kemu/client';

const MAX_FRAME = 128;
const FRAME = /^KEMU-POD ([0-9a-fA-F.:]+) (\d{1,5})$/;

/** The frame that opens a connection to ip:port. */
export function podFrame(ip: string, port: number): string {
  return `KEMU-POD ${ip} ${port}\n`;
}

/** Reads the frame off a socket: the destination, and what the client sent after it. */
function readFrame(socket: net.Socket, done: (dest: { ip: string; port: number; rest: Buffer } | undefined) => void): void {
  let buf = Buffer.alloc(0);
  const onData = (c: Buffer) => {
    buf = Buffer.concat([buf, c]);
    const nl = buf.indexOf(10);
    if (nl < 0 && buf.length < MAX_FRAME) return;
    socket.off('data', onData);
    socket.pause();
    const m = nl >= 0 ? FRAME.exec(buf.subarray(0, nl).toString('latin1')) : null;
    const port = Number(m?.[2]);
    done(m && port > 0 && port < 65536 ? { ip: m[1] ?? '', port, rest: buf.subarray(nl + 1) } : undefined);
  };
  socket.on('data', onData);
}

/** Joins two connections; either ending or failing ends both. */
export function splice(a: Duplex, b: Duplex): void {
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  a.pipe(b).pipe(a);
}

/** The listener: `connect(ip, port)` gives the connection to a pod this process runs, or undefined (reset). */
export class PodNetworkServer {
  private server: net.Server | undefined;

  constructor(
    private readonly connect: (ip: string, port: number) => Duplex | undefined,
    private readonly logger: Logger,
  ) {}

  listen(address: string, port: number): Promise<number | undefined> {
    const srv = net.createServer((socket) => this.accept(socket));
    this.server = srv;
    return new Promise((resolve) => {
      srv.once('error', (e: NodeJS.ErrnoException) => {
        this.logger.error({ address, port, err: e.code ?? String(e) }, 'pod network: cannot listen; pods elsewhere cannot reach the pods of this node');
        resolve(undefined);
      });
      srv.listen(port, address, () => {
        const a = srv.address();
        resolve(typeof a === 'object' && a ? a.port : undefined);
      });
    });
  }

  private accept(socket: net.Socket): void {
    socket.setNoDelay(true);
    socket.on('error', () => socket.destroy());
    readFrame(socket, (dest) => {
      const conn = dest ? this.connect(dest.ip, dest.port) : undefined;
      if (!dest || !conn) {
        socket.resetAndDestroy();
        return;
      }
      if (dest.rest.length) conn.write(dest.rest);
      splice(socket, conn);
      socket.resume();
    });
  }

  stop(): void {
    this.server?.close();
  }
}

/** The InternalIP of each node, read from its Node object (and kept: a node's address does not change). */
export class NodeAddresses {
  private readonly known = new Map<string, Promise<string | undefined>>();

  constructor(private readonly client: Pick<RestClient, 'get'>) {}

  internalIP(node: string): Promise<string | undefined> {
    let p = this.known.get(node);
    if (!p) {
      p = this.client.get<Node>(R.nodes, undefined, node).then(
        (n) => n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address,
        () => undefined,
      );
      // A failed or address-less read is tried again next time.
      void p.then((ip) => ip === undefined && this.known.delete(node));
      this.known.set(node, p);
    }
    return p;
  }
}

/** Opens a connection to ip:port through the pod-network port of the node at `nodeIP`; rejects if it cannot connect. */
export function dialPod(nodeIP: string, networkPort: number, ip: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: nodeIP, port: networkPort, noDelay: true });
    s.once('error', reject);
    s.once('connect', () => {
      s.off('error', reject);
      s.write(podFrame(ip, port));
      resolve(s);
    });
  });
}
