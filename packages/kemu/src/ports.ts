// Picks TCP ports on 127.0.0.1 for components: a preferred fixed port when it is free, else one the kernel gives.
import net from 'node:net';

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => {
      const addr = srv.address();
      const got = typeof addr === 'object' && addr ? addr.port : undefined;
      srv.close(() => resolve(got));
    });
  });
}

export async function isPortFree(port: number): Promise<boolean> {
  return (await tryListen(port)) === port;
}

/** A port that is free now; `preferred` when given and free. Never returns one already in `taken`. */
export async function pickPort(taken: Set<number>, preferred?: number): Promise<number> {
  if (preferred !== undefined && preferred > 0 && preferred < 65536 && !taken.has(preferred)) {
    if (await isPortFree(preferred)) {
      taken.add(preferred);
      return preferred;
    }
  }
  for (;;) {
    const p = await tryListen(0);
    if (p !== undefined && !taken.has(p)) {
      taken.add(p);
      return p;
    }
  }
}
