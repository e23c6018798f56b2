// Test helpers: a free TCP port on 127.0.0.1, and a random loopback /24 with a free port on its .1 (bound then released).
import net from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A loopback /24 for one lab or test, picked at random in 127.100.0.0–127.254.255.0 (all of 127.0.0.0/8 is
 * local on Linux), so parallel test files do not meet on addresses; with a free port on its .1.
 */
export async function freeLabAddress(): Promise<{ address: string; port: number; block: string }> {
  for (;;) {
    const block = `127.${100 + Math.floor(Math.random() * 155)}.${Math.floor(Math.random() * 256)}`;
    const address = `${block}.1`;
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(0));
      srv.listen(0, address, () => {
        const addr = srv.address();
        const p = typeof addr === 'object' && addr ? addr.port : 0;
        srv.close(() => resolve(p));
      });
    });
    if (port) return { address, port, block };
  }
}
