// Picks TCP ports for components on their own loopback addresses: the preferred (Kubernetes') port when it is
// free there, else one the kernel gives. A port held on 0.0.0.0 by another program counts as taken.
import net from 'node:net';

function tryListen(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, host, () => {
      const addr = srv.address();
      const got = typeof addr === 'object' && addr ? addr.port : undefined;
      srv.close(() => resolve(got));
    });
  });
}

export async function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return (await tryListen(port, host)) === port;
}

const key = (host: string, port: number) => `${host}:${port}`;

/** A port free now on `host`; `preferred` when given and free. Never one already in `taken` ("host:port"). */
export async function pickPort(taken: Set<string>, host: string, preferred?: number): Promise<number> {
  return pickSharedPort(taken, [host], preferred);
}

/** One port free on every host (the apiservers share one, as on separate machines); `preferred` when it is. */
export async function pickSharedPort(taken: Set<string>, hosts: string[], preferred?: number): Promise<number> {
  const freeEverywhere = async (p: number) => {
    for (const h of hosts) if (taken.has(key(h, p)) || !(await isPortFree(p, h))) return false;
    return true;
  };
  const claim = (p: number) => {
    for (const h of hosts) taken.add(key(h, p));
    return p;
  };
  if (preferred !== undefined && preferred > 0 && preferred < 65536 && (await freeEverywhere(preferred))) return claim(preferred);
  for (let attempt = 0; attempt < 100; attempt++) {
    const p = await tryListen(0, hosts[0] ?? '127.0.0.1');
    if (p !== undefined && (await freeEverywhere(p))) return claim(p);
  }
  throw new Error(`no TCP port free on all of ${hosts.join(', ')}`);
}
