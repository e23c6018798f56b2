// The `kubernetes` Service's ClusterIP: the first address of the primary --service-cluster-ip-range
// (10.96.0.0/12 gives 10.96.0.1), a SAN of every apiserver certificate, as kubeadm computes it.
import net from 'node:net';
import { PkiError } from './errors.ts';

function toBigInt(ip: string): { value: bigint; bits: number } {
  if (net.isIPv4(ip)) return { value: ip.split('.').reduce((a, o) => (a << 8n) | BigInt(Number(o)), 0n), bits: 32 };
  const sl = new net.SocketAddress({ address: ip, family: 'ipv6' }).address;
  const [head = '', tail = ''] = sl.split('::');
  const h = head ? head.split(':') : [];
  const t = sl.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = sl.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return { value: groups.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n), bits: 128 };
}

function fromBigInt(v: bigint, bits: number): string {
  if (bits === 32) return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((v >> s) & 0xffffn).toString(16));
  return new net.SocketAddress({ address: groups.join(':'), family: 'ipv6' }).address;
}

export function firstServiceIP(range: string): string {
  const primary = range.split(',')[0]?.trim() ?? '';
  const m = /^([^/]+)\/(\d+)$/.exec(primary);
  const ip = m?.[1] ?? '';
  if (!m || !net.isIP(ip)) throw new PkiError(`invalid service cluster IP range "${range}": want a CIDR such as 10.96.0.0/12`);
  const { value, bits } = toBigInt(ip);
  const prefix = Number(m[2]);
  if (prefix > bits - 2) throw new PkiError(`invalid service cluster IP range "${range}": /${prefix} leaves no address for the kubernetes Service`);
  const mask = ((1n << BigInt(bits)) - 1n) ^ ((1n << BigInt(bits - prefix)) - 1n);
  return fromBigInt((value & mask) + 1n, bits);
}
