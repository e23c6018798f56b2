// Pod IPs from the node's pod CIDR: the lowest free address from .2 up (.0 is the network, .1 the bridge),
// released when the pod's sandbox goes, so addresses are reused as pods come and go.
import { intToIp, ipToInt, parseCIDR } from '../node/status.ts';

export class PodIPAllocator {
  private base = 0;
  private size = 0;
  private readonly used = new Set<number>();
  cidr = '';

  constructor(cidr: string) {
    this.setCIDR(cidr);
  }

  /** Switches to a new range (the Node got spec.podCIDR); addresses already given keep working until released. */
  setCIDR(cidr: string): void {
    if (cidr === this.cidr) return;
    const { base, prefix } = parseCIDR(cidr);
    this.cidr = cidr;
    this.base = base;
    this.size = 2 ** (32 - prefix);
    this.used.clear();
  }

  allocate(preferred?: string): string | undefined {
    if (preferred) {
      const off = this.offset(preferred);
      if (off !== undefined && off >= 2 && off < this.size - 1 && !this.used.has(off)) {
        this.used.add(off);
        return preferred;
      }
    }
    for (let off = 2; off < this.size - 1; off++) {
      if (!this.used.has(off)) {
        this.used.add(off);
        return intToIp((this.base + off) >>> 0);
      }
    }
    return undefined;
  }

  release(ip: string | undefined): void {
    const n = ip ? this.offset(ip) : undefined;
    if (n !== undefined) this.used.delete(n);
  }

  private offset(ip: string): number | undefined {
    let n: number;
    try {
      n = ipToInt(ip) - this.base;
    } catch {
      return undefined;
    }
    return n >= 0 && n < this.size ? n : undefined;
  }

  inUse(): number {
    return this.used.size;
  }
}
