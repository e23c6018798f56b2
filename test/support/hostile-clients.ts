// Test and bench helper: misbehaving HTTP clients on raw loopback sockets, each bounded in count and closed
// by its owner. Half bodies (headers with Content-Length, then half the body, then silence), silent
// connections (never a request line) and watchers (HTTP streaming or WebSocket) that never read. Each records when and how the server
// let go of it, so a test can assert that the server bounds them.
import net from 'node:net';

export interface HeldSocket {
  socket: net.Socket;
  /** performance.now() at connect. */
  openedAt: number;
  /** performance.now() when the server closed or reset the connection (undefined while it is open). */
  closedAt: number | undefined;
  /** Bytes the server sent (latin1), up to 64 KiB. */
  answer: string;
}

export interface HostileGroup {
  readonly sockets: HeldSocket[];
  /** How many are still open. */
  open(): number;
  /** Destroys every socket still open (idempotent). */
  close(): void;
}

const MAX_ANSWER = 64 * 1024;

function connect(port: number, host: string, paused: boolean): Promise<HeldSocket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host });
    const held: HeldSocket = { socket, openedAt: 0, closedAt: undefined, answer: '' };
    if (!paused) {
      socket.on('data', (d: Buffer) => {
        if (held.answer.length < MAX_ANSWER) held.answer += d.toString('latin1');
      });
    }
    socket.on('error', () => undefined);
    socket.once('close', () => {
      held.closedAt ??= performance.now();
    });
    // A paused reader still learns of a reset or FIN only when it reads; 'end' is not emitted while paused.
    socket.once('connect', () => {
      held.openedAt = performance.now();
      if (paused) socket.pause();
      resolve(held);
    });
    socket.once('error', (e) => {
      if (held.openedAt === 0) reject(e);
    });
  });
}

async function group(n: number, open: () => Promise<HeldSocket>): Promise<HostileGroup> {
  const sockets: HeldSocket[] = [];
  const g: HostileGroup = {
    sockets,
    open: () => sockets.filter((s) => s.closedAt === undefined).length,
    close: () => {
      for (const s of sockets) s.socket.destroy();
    },
  };
  try {
    // In small waves: a burst of thousands of SYNs could overflow the listen backlog.
    for (let i = 0; i < n; i += 50) {
      const wave = await Promise.all(Array.from({ length: Math.min(50, n - i) }, open));
      sockets.push(...wave);
    }
  } catch (e) {
    g.close();
    throw e;
  }
  return g;
}

/** n connections that each send a request's headers (Content-Length: bodyBytes) and half its body, then nothing. */
export function halfBodies(port: number, n: number, opts: { path?: string; bodyBytes?: number; host?: string } = {}): Promise<HostileGroup> {
  const path = opts.path ?? '/api/v1/namespaces/default/configmaps';
  const bodyBytes = opts.bodyBytes ?? 1000;
  const head = `POST ${path} HTTP/1.1\r\nHost: kemu\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`;
  const half = `{"metadata":{"name":"half"},"data":{"k":"${'x'.repeat(Math.max(0, Math.floor(bodyBytes / 2) - 36))}`;
  return group(n, async () => {
    const s = await connect(port, opts.host ?? '127.0.0.1', false);
    s.socket.write(head + half);
    return s;
  });
}

/** n connections that never send a byte. */
export function silentConnections(port: number, n: number, opts: { host?: string } = {}): Promise<HostileGroup> {
  return group(n, () => connect(port, opts.host ?? '127.0.0.1', false));
}

/**
 * n watches (HTTP streaming) whose clients never read a byte after sending the request: the kernel's
 * buffers fill and the server holds whatever it has not sent. The server's close is seen through the
 * socket's 'close' (a reset, or the server's FIN once the local buffers drain).
 */
export function stalledWatchers(port: number, n: number, path: string, opts: { host?: string } = {}): Promise<HostileGroup> {
  return group(n, async () => {
    const s = await connect(port, opts.host ?? '127.0.0.1', true);
    s.socket.write(`GET ${path} HTTP/1.1\r\nHost: kemu\r\nAccept: application/json\r\n\r\n`);
    return s;
  });
}

/** n WebSocket watches that complete the upgrade and then never read a byte. */
export function stalledWebSocketWatchers(port: number, n: number, path: string, opts: { host?: string } = {}): Promise<HostileGroup> {
  return group(n, async () => {
    const s = await connect(port, opts.host ?? '127.0.0.1', true);
    const key = Buffer.from(Array.from({ length: 16 }, (_, i) => i)).toString('base64');
    s.socket.write(`GET ${path} HTTP/1.1\r\nHost: kemu\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n\r\n`);
    return s;
  });
}

/** Resident set size of a process in bytes (Linux /proc), or undefined where that is not readable. */
export async function rssBytes(pid: number): Promise<number | undefined> {
  const { readFile } = await import('node:fs/promises');
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
