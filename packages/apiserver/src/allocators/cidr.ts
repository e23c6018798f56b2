// IPv4 CIDR and port-range parsing for the service allocators.

export interface IPv4Range {
  cidr: string;
  /** Network address as an unsigned 32-bit integer. */
  network: number;
  /** Number of addresses in the block, network and broadcast included. */
  size: number;
}

export function ipToInt(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
}

export function intToIp(n: number): string {
  return [Math.floor(n / 2 ** 24) % 256, Math.floor(n / 2 ** 16) % 256, Math.floor(n / 2 ** 8) % 256, n % 256].join('.');
}

export function parseCIDR(cidr: string): IPv4Range {
  const [addr, bitsText] = cidr.split('/');
  const base = ipToInt(addr ?? '');
  const bits = Number(bitsText);
  if (base === undefined || !/^\d+$/.test(bitsText ?? '') || bits < 0 || bits > 30)
    throw new Error(`invalid service CIDR "${cidr}": expected an IPv4 CIDR such as 10.96.0.0/12`);
  const size = 2 ** (32 - bits);
  return { cidr, network: base - (base % size), size };
}

/** Usable addresses: the block without its network and broadcast addresses. */
export function contains(r: IPv4Range, ip: number): boolean {
  return ip > r.network && ip < r.network + r.size - 1;
}

export interface PortRange {
  base: number;
  size: number;
  text: string;
}

/** "30000-32767" (or a single port "30000"). */
export function parsePortRange(s: string): PortRange {
  const m = /^(\d+)(?:-(\d+))?$/.exec(s.trim());
  const lo = Number(m?.[1]);
  const hi = m?.[2] === undefined ? lo : Number(m[2]);
  if (!m || lo < 1 || hi > 65535 || hi < lo) throw new Error(`invalid port range "${s}": expected e.g. 30000-32767`);
  return { base: lo, size: hi - lo + 1, text: `${lo}-${hi}` };
}
