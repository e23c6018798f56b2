// Which IP a replica advertises (the `default/kubernetes` Endpoints, its identity Lease, /api's
// serverAddressByClientCIDRs), chosen like kube-apiserver chooses it.
import fs from 'node:fs';
import os from 'node:os';

/**
 * --advertise-address, else the bind address unless it is unspecified (0.0.0.0), else — as kube-apiserver does —
 * the IPv4 address of the host's default-route interface (so each compose replica advertises its container IP),
 * else 127.0.0.1.
 */
export function advertisedIP(advertiseAddress: string, bindAddress: string, hostIP: () => string | undefined = defaultInterfaceIPv4): string {
  if (advertiseAddress) return advertiseAddress;
  if (bindAddress && bindAddress !== '0.0.0.0' && bindAddress !== '::') return bindAddress;
  return hostIP() ?? '127.0.0.1';
}

/** The first IPv4 address of the interface holding the default route (/proc/net/route), else of any non-loopback one. */
export function defaultInterfaceIPv4(routes = readRoutes(), ifaces = os.networkInterfaces()): string | undefined {
  const v4 = (name: string) => ifaces[name]?.find((a) => a.family === 'IPv4' && !a.internal)?.address;
  // /proc/net/route: Iface Destination Gateway …, destination 00000000 is the default route.
  for (const line of routes.split('\n').slice(1)) {
    const [iface, dest] = line.trim().split(/\s+/);
    if (iface && dest === '00000000') {
      const ip = v4(iface);
      if (ip) return ip;
    }
  }
  for (const name of Object.keys(ifaces)) {
    const ip = v4(name);
    if (ip) return ip;
  }
  return undefined;
}

function readRoutes(): string {
  try {
    return fs.readFileSync('/proc/net/route', 'utf8');
  } catch {
    return '';
  }
}
