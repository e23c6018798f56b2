import { describe, expect, it } from 'vitest';
import { firstServiceIP, formatIP, parseCIDR, parseIP, parseServiceClusterIPRanges } from './ip.ts';

describe('IP addresses and CIDRs', () => {
  it('reads and prints both families as Go does', () => {
    expect(formatIP(parseIP('10.96.0.1')!)).toBe('10.96.0.1');
    expect(formatIP(parseIP('fd00:1111:0:0::0a')!)).toBe('fd00:1111::a');
    expect(formatIP(parseIP('::ffff:1.2.3.4')!)).toBe('1.2.3.4');
    expect(parseIP('10.96.0.256')).toBeUndefined();
    expect(parseCIDR('10.100.7.9/16')?.text).toBe('10.100.0.0/16');
    expect(parseCIDR('fd00:1111::5/112')?.text).toBe('fd00:1111::/112');
    expect(parseCIDR('10.0.0.0/33')).toBeUndefined();
  });

  it('finds the kubernetes Service IP: the first address of the primary range', () => {
    expect(firstServiceIP('10.96.0.0/12')).toBe('10.96.0.1');
    expect(firstServiceIP('10.100.7.9/16')).toBe('10.100.0.1');
    expect(firstServiceIP('10.96.0.0/12,fd00:1111::/112')).toBe('10.96.0.1');
    expect(firstServiceIP('fd00:1111::/112')).toBe('fd00:1111::1');
    expect(firstServiceIP('')).toBe('10.96.0.1');
  });

  it('refuses --service-cluster-ip-range values with kube-apiserver 1.31 words', () => {
    const errs = (v: string) => {
      const r = parseServiceClusterIPRanges(v);
      return 'errors' in r ? r.errors : [];
    };
    expect(errs('10.96.0.0')).toEqual(['service-cluster-ip-range[0] is not a valid cidr']);
    expect(errs('10.96.0.0/30')).toEqual(['error determining service IP ranges for primary service cidr: the service cluster IP range must be at least 8 IP addresses']);
    expect(errs('10.96.0.0/12,bogus')).toEqual(['service-cluster-ip-range[1] is not an ip net']);
    expect(errs('10.96.0.0/12,fd00::/112,fd01::/112')).toEqual(['--service-cluster-ip-range must not contain more than two entries']);
    expect(errs('10.96.0.0/12,10.200.0.0/16')).toEqual(['--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family']);
    expect(errs('10.0.0.0/8')).toEqual(['specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12']);
    expect(errs('10.96.0.0/12,fd00::/64')).toEqual(['specified --service-cluster-ip-range[1] is too large; for 128-bit addresses, the mask must be >= 108']);
    expect(errs('10.96.0.0/12,fd00:1111::/108')).toEqual([]);
  });
});
