// Node IPAM's ranges, as kube-controller-manager reads them: --cluster-cidr (one CIDR, or one per family; host bits
// masked as Go's ParseCIDR does, so 172.218.0.0/12 is 172.208.0.0/12), the node mask size per family
// (setNodeCIDRMaskSizes, with its messages), and a CidrSet per cluster CIDR handing out subnets round-robin.
import { formatIP, parseCIDR, type CIDR } from '@kemu/base';

const DEFAULT_MASK_IPV4 = 24;
const DEFAULT_MASK_IPV6 = 64;
// cidrset: an IPv6 node mask may be at most 16 bits longer than the cluster's.
const CLUSTER_SUBNET_MAX_DIFF = 16;

/** validateCIDRs: the --cluster-cidr list; throws Kubernetes' message. */
export function parseClusterCIDRs(flag: string): CIDR[] {
  const cidrs = flag
    .trim()
    .split(',')
    .map((text, i) => {
      const c = parseCIDR(text);
      if (!c) throw new Error(`invalid CIDR[${i}]: <nil> (invalid CIDR address: ${text})`);
      return c;
    });
  const dualStack = cidrs.some((c) => c.family === 'IPv4') && cidrs.some((c) => c.family === 'IPv6');
  if (cidrs.length > 1 && !dualStack)
    throw new Error(`len of ClusterCIDRs==${cidrs.length} and they are not configured as dual stack (at least one from each IPFamily`);
  if (cidrs.length > 2) throw new Error(`length of clusterCIDRs is:${cidrs.length} more than max allowed of 2`);
  return cidrs;
}

export interface MaskFlags {
  'node-cidr-mask-size': number;
  'node-cidr-mask-size-ipv4': number;
  'node-cidr-mask-size-ipv6': number;
}

/** setNodeCIDRMaskSizes: the node mask size for each cluster CIDR (0 = flag not set). */
export function nodeMaskSizes(f: MaskFlags, cidrs: readonly CIDR[]): number[] {
  const sized = (v4: number, v6: number) => cidrs.map((c) => (c.family === 'IPv6' ? v6 : v4));
  const mask = f['node-cidr-mask-size'];
  const v4 = f['node-cidr-mask-size-ipv4'];
  const v6 = f['node-cidr-mask-size-ipv6'];
  if (cidrs.length > 1) {
    if (mask !== 0) throw new Error('usage of --node-cidr-mask-size is not allowed with dual-stack clusters');
    return sized(v4 || DEFAULT_MASK_IPV4, v6 || DEFAULT_MASK_IPV6);
  }
  if (mask !== 0) {
    if (v4 !== 0 || v6 !== 0)
      throw new Error(
        'usage of --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 is not allowed if --node-cidr-mask-size is set. For dual-stack clusters please unset it and use IPFamily specific flags',
      );
    return sized(mask, mask);
  }
  const v6Only = cidrs[0]?.family === 'IPv6';
  if (v4 !== 0 && v6Only) throw new Error('usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster');
  if (v6 !== 0 && !v6Only) throw new Error('usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster');
  return sized(v4 || DEFAULT_MASK_IPV4, v6 || DEFAULT_MASK_IPV6);
}

/** Kubernetes' cidrset.CidrSet: the node-sized subnets of one cluster CIDR. */
export class CIDRSet {
  private readonly count: bigint;
  private readonly step: bigint;
  private readonly used = new Set<bigint>();
  private nextCandidate = 0n;

  constructor(
    readonly cluster: CIDR,
    readonly maskSize: number,
  ) {
    if (maskSize < cluster.prefix || maskSize > cluster.bits) throw new Error(`node CIDR mask size ${maskSize} must be between ${cluster.prefix} and ${cluster.bits} for cluster CIDR ${cluster.text}`);
    if (cluster.family === 'IPv6' && maskSize - cluster.prefix > CLUSTER_SUBNET_MAX_DIFF) throw new Error('New CIDR set failed; the node CIDR size is too big');
    this.count = 1n << BigInt(maskSize - cluster.prefix);
    this.step = 1n << BigInt(cluster.bits - maskSize);
  }

  /** The subnet indices a CIDR overlaps; undefined when it lies outside the cluster CIDR. */
  private indices(text: string): [bigint, bigint] | undefined {
    const c = parseCIDR(text);
    if (!c || c.family !== this.cluster.family) return undefined;
    const first = c.network;
    const last = c.network + (1n << BigInt(c.bits - c.prefix)) - 1n;
    const base = this.cluster.network;
    const end = base + this.count * this.step - 1n;
    if (last < base || first > end) return undefined;
    const lo = first < base ? 0n : (first - base) / this.step;
    const hi = last > end ? this.count - 1n : (last - base) / this.step;
    return [lo, hi];
  }

  /** Marks every subnet overlapping cidr as taken; throws when it is outside the cluster CIDR. */
  occupy(cidr: string): void {
    const r = this.indices(cidr);
    if (!r) throw new Error(`cidr ${cidr} is out the range of cluster cidr ${this.cluster.text}`);
    for (let i = r[0]; i <= r[1]; i++) this.used.add(i);
  }

  release(cidr: string): void {
    const r = this.indices(cidr);
    if (r) for (let i = r[0]; i <= r[1]; i++) this.used.delete(i);
  }

  /** The next free subnet after the last one handed out (wrapping), or undefined when none is left. */
  allocateNext(): string | undefined {
    if (BigInt(this.used.size) >= this.count) return undefined;
    let candidate = this.nextCandidate;
    while (this.used.has(candidate)) candidate = (candidate + 1n) % this.count;
    this.nextCandidate = (candidate + 1n) % this.count;
    this.used.add(candidate);
    return `${formatIP({ family: this.cluster.family, value: this.cluster.network + candidate * this.step })}/${this.maskSize}`;
  }
}

/** Whether two CIDRs overlap (either contains the other's network). */
export function overlaps(a: CIDR, b: CIDR): boolean {
  if (a.family !== b.family) return false;
  const end = (c: CIDR) => c.network + (1n << BigInt(c.bits - c.prefix));
  return a.network < end(b) && b.network < end(a);
}
