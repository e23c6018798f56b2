// IP addresses and CIDRs of both families as bigints, and the --service-cluster-ip-range flag read as
// kube-apiserver reads it (getServiceIPAndRanges + ServiceIPRange + validateClusterIPFlags, with their
// messages): one or two CIDRs of different families, the first one's first address being the `kubernetes`
// Service's ClusterIP. Shared by the apiserver (allocation, bootstrap) and the PKI (the apiserver's SANs).
import net from 'node:net';

export type IPFamily = 'IPv4' | 'IPv6';

export interface IP {
  family: IPFamily;
  value: bigint;
}

export interface CIDR {
  family: IPFamily;
  /** The network address (host bits cleared). */
  network: bigint;
  prefix: number;
  /** 32 or 128. */
  bits: number;
  /** Canonical text: network address / prefix (as Go's IPNet.String()). */
  text: string;
}

const bitsOf = (f: IPFamily): number => (f === 'IPv4' ? 32 : 128);

/** A textual IP (IPv4 dotted quad or any IPv6 form) → family and value; undefined when it is not one. */
export function parseIP(text: string): IP | undefined {
  if (net.isIPv4(text)) return { family: 'IPv4', value: text.split('.').reduce((a, o) => (a << 8n) | BigInt(Number(o)), 0n) };
  if (!net.isIPv6(text)) return undefined;
  const canonical = new net.SocketAddress({ address: text, family: 'ipv6' }).address;
  // An IPv4-mapped tail ("::ffff:1.2.3.4") becomes two groups.
  const expanded = canonical.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a: string, b: string, c: string, d: string) =>
    `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  const [head = '', tail = ''] = expanded.split('::');
  const h = head ? head.split(':') : [];
  const t = expanded.includes('::') && tail ? tail.split(':') : [];
  const groups = expanded.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  const value = groups.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n);
  // Go reads an IPv4-mapped address (::ffff:a.b.c.d) as the IPv4 address it maps.
  if (value >> 32n === 0xffffn) return { family: 'IPv4', value: value & 0xffffffffn };
  return { family: 'IPv6', value };
}

/** Go's net.IP.String(): dotted quad, or the shortest IPv6 form. */
export function formatIP(ip: IP): string {
  const v = ip.value;
  if (ip.family === 'IPv4') return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((v >> s) & 0xffffn).toString(16));
  return new net.SocketAddress({ address: groups.join(':'), family: 'ipv6' }).address;
}

export function ipFamilyOf(text: string): IPFamily | undefined {
  return parseIP(text)?.family;
}

/** "10.96.0.0/12" (host bits may be set, as Go's ParseCIDR allows) → the network; undefined when invalid. */
export function parseCIDR(text: string): CIDR | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text.trim());
  const ip = m ? parseIP(m[1] as string) : undefined;
  if (!m || !ip) return undefined;
  const bits = bitsOf(ip.family);
  const prefix = Number(m[2]);
  if (prefix > bits) return undefined;
  const host = (1n << BigInt(bits - prefix)) - 1n;
  const network = ip.value & ~host;
  return { family: ip.family, network, prefix, bits, text: `${formatIP({ family: ip.family, value: network })}/${prefix}` };
}

/** Addresses in the block, network (and IPv4 broadcast) included. */
export function cidrSize(c: CIDR): bigint {
  return 1n << BigInt(c.bits - c.prefix);
}

export function cidrContains(c: CIDR, ip: IP): boolean {
  return ip.family === c.family && ip.value >= c.network && ip.value < c.network + cidrSize(c);
}

/** The address at offset i of the block (1 is its first host address). */
export function indexedIP(c: CIDR, i: bigint): string {
  return formatIP({ family: c.family, value: c.network + i });
}

export interface ServiceCIDRs {
  primary: CIDR;
  secondary?: CIDR;
  /** The `kubernetes` Service's ClusterIP: the first address of the primary range. */
  apiServerServiceIP: string;
}

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12';
// Kubernetes keeps allocation bitmaps in etcd; 20 host bits is the largest range it takes (without the
// MultiCIDRServiceAllocator gate, off in 1.31).
const MAX_CIDR_BITS = 20;

function tooLarge(c: CIDR, flag: string): string | undefined {
  if (c.bits - c.prefix > MAX_CIDR_BITS) return `specified ${flag} is too large; for ${c.bits}-bit addresses, the mask must be >= ${c.bits - MAX_CIDR_BITS}`;
  return undefined;
}

/**
 * --service-cluster-ip-range as kube-apiserver reads and validates it: the ranges, or the errors it prints
 * (the first from Complete(), which stops there; else every one from Validate()).
 */
export function parseServiceClusterIPRanges(flag: string): ServiceCIDRs | { errors: string[] } {
  const list = flag === '' ? [DEFAULT_SERVICE_CLUSTER_IP_RANGE] : flag.split(',');
  const primary = parseCIDR(list[0] as string);
  if (!primary) return { errors: ['service-cluster-ip-range[0] is not a valid cidr'] };
  const size = cidrSize(primary);
  if ((size < 65536n ? size : 65536n) < 8n)
    return { errors: ['error determining service IP ranges for primary service cidr: the service cluster IP range must be at least 8 IP addresses'] };
  let secondary: CIDR | undefined;
  if (list.length > 1) {
    secondary = parseCIDR(list[1] as string);
    if (!secondary) return { errors: ['service-cluster-ip-range[1] is not an ip net'] };
  }
  const errors: string[] = [];
  if (list.length > 2) errors.push('--service-cluster-ip-range must not contain more than two entries');
  const big = tooLarge(primary, '--service-cluster-ip-range');
  if (big) errors.push(big);
  if (secondary) {
    if (secondary.family === primary.family) errors.push('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
    const big2 = tooLarge(secondary, '--service-cluster-ip-range[1]');
    if (big2) errors.push(big2);
  }
  if (errors.length > 0) return { errors };
  return { primary, ...(secondary ? { secondary } : {}), apiServerServiceIP: indexedIP(primary, 1n) };
}

/**
 * The `kubernetes` Service's ClusterIP for a --service-cluster-ip-range value ("10.96.0.0/12,fd00::/108" →
 * "10.96.0.1"); throws with kube-apiserver's message when the flag is invalid.
 */
export function firstServiceIP(range: string): string {
  const r = parseServiceClusterIPRanges(range);
  if ('errors' in r) throw new Error(r.errors.join(', '));
  return r.apiServerServiceIP;
}
