import { describe, expect, it } from 'vitest';
import { parseCIDR } from '@kemu/base';
import { CIDRSet, nodeMaskSizes, parseClusterCIDRs } from './nodeipam-cidrs.ts';

const flags = (mask = 0, v4 = 0, v6 = 0) => ({ 'node-cidr-mask-size': mask, 'node-cidr-mask-size-ipv4': v4, 'node-cidr-mask-size-ipv6': v6 });

describe('--cluster-cidr and the node mask sizes', () => {
  it('masks host bits as Go does and takes one CIDR of each family', () => {
    expect(parseClusterCIDRs('172.218.0.0/12,fc00:2222::/112').map((c) => c.text)).toEqual(['172.208.0.0/12', 'fc00:2222::/112']);
    expect(parseClusterCIDRs(' 10.200.0.0/16 ').map((c) => c.text)).toEqual(['10.200.0.0/16']);
  });

  it("refuses what kube-controller-manager refuses, with its messages", () => {
    expect(() => parseClusterCIDRs('10.0.0.0/8,nonsense')).toThrow('invalid CIDR[1]: <nil> (invalid CIDR address: nonsense)');
    expect(() => parseClusterCIDRs('10.0.0.0/16,10.1.0.0/16')).toThrow('len of ClusterCIDRs==2 and they are not configured as dual stack (at least one from each IPFamily');
    expect(() => parseClusterCIDRs('10.0.0.0/16,fc00::/112,fd00::/112')).toThrow('length of clusterCIDRs is:3 more than max allowed of 2');
  });

  it('uses the per-family flags (defaults 24 and 64) and refuses --node-cidr-mask-size with dual-stack', () => {
    const dual = parseClusterCIDRs('172.218.0.0/12,fc00:2222::/112');
    expect(nodeMaskSizes(flags(0, 24, 120), dual)).toEqual([24, 120]);
    expect(nodeMaskSizes(flags(), parseClusterCIDRs('fc00::/48,10.0.0.0/8'))).toEqual([64, 24]);
    expect(() => nodeMaskSizes(flags(24), dual)).toThrow('usage of --node-cidr-mask-size is not allowed with dual-stack clusters');
    const v4 = parseClusterCIDRs('10.200.0.0/16');
    expect(nodeMaskSizes(flags(), v4)).toEqual([24]);
    expect(nodeMaskSizes(flags(26), v4)).toEqual([26]);
    expect(nodeMaskSizes(flags(0, 25), v4)).toEqual([25]);
    expect(() => nodeMaskSizes(flags(0, 0, 120), v4)).toThrow('usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster');
    expect(() => nodeMaskSizes(flags(24, 24), v4)).toThrow(/is not allowed if --node-cidr-mask-size is set/);
  });
});

describe('CIDRSet', () => {
  const set = (text: string, mask: number) => new CIDRSet(parseCIDR(text)!, mask);

  it('hands out subnets round-robin, as Kubernetes\' cidrset (a released one comes back after the others)', () => {
    const s = set('10.200.0.0/22', 24);
    expect([s.allocateNext(), s.allocateNext()]).toEqual(['10.200.0.0/24', '10.200.1.0/24']);
    s.release('10.200.0.0/24');
    expect([s.allocateNext(), s.allocateNext(), s.allocateNext(), s.allocateNext()]).toEqual(['10.200.2.0/24', '10.200.3.0/24', '10.200.0.0/24', undefined]);
  });

  it('allocates IPv6 subnets and skips occupied ranges', () => {
    const s = set('fc00:2222::/112', 120);
    s.occupy('fc00:2222::/120');
    expect(s.allocateNext()).toBe('fc00:2222::100/120');
    const v4 = set('10.96.0.0/11', 24);
    v4.occupy('10.96.0.0/12'); // a service range inside the cluster CIDR takes 4096 subnets
    expect(v4.allocateNext()).toBe('10.112.0.0/24');
    expect(() => v4.occupy('192.168.0.0/24')).toThrow('cidr 192.168.0.0/24 is out the range of cluster cidr 10.96.0.0/11');
  });

  it('refuses an IPv6 node mask more than 16 bits longer than the cluster\'s', () => {
    expect(() => set('fc00::/48', 120)).toThrow('New CIDR set failed; the node CIDR size is too big');
  });
});
