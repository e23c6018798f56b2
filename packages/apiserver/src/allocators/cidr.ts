// Service IP ranges (ipallocator.Range: usable addresses from the network address + 1, no IPv4
// broadcast, an IPv6 range capped at 65536 addresses) and port-range parsing for the service allocators.
import { cidrSize, formatIP, type CIDR, type IP, type IPFamily } from '@kemu/base';

export interface ServiceIPRange {
  cidr: CIDR;
  family: IPFamily;
  /** The first usable address (network + 1). */
  base: bigint;
  /** How many addresses from base are usable. */
  max: number;
}

export function serviceIPRange(cidr: CIDR): ServiceIPRange {
  let max = cidrSize(cidr);
  if (cidr.family === 'IPv6' && max > 65536n) max = 65536n;
  if (cidr.family === 'IPv4') max -= 1n;
  max -= 1n;
  return { cidr, family: cidr.family, base: cidr.network + 1n, max: Number(max < 0n ? 0n : max) };
}

/** The usable address at offset i (0 is network + 1). */
export function ipAt(r: ServiceIPRange, i: number): string {
  return formatIP({ family: r.family, value: r.base + BigInt(i) });
}

export function contains(r: ServiceIPRange, ip: IP): boolean {
  if (ip.family !== r.family) return false;
  const offset = ip.value - r.base;
  return offset >= 0n && offset < BigInt(r.max);
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
