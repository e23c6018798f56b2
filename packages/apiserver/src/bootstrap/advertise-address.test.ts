import type os from 'node:os';
import { describe, expect, it } from 'vitest';
import { advertisedIP, defaultInterfaceIPv4 } from './advertise-address.ts';

const addr = (address: string, internal = false): os.NetworkInterfaceInfo =>
  ({ address, family: 'IPv4', internal, netmask: '255.255.0.0', mac: '00:00:00:00:00:00', cidr: `${address}/16` }) as os.NetworkInterfaceInfo;
const ROUTES = [
  'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
  'eth1\t0010A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
  'eth0\t00000000\t010011AC\t0003\t0\t0\t0\t00000000\t0\t0\t0',
].join('\n');

describe('advertised address', () => {
  it('is --advertise-address, else a specific bind address, else the host interface, else 127.0.0.1', () => {
    expect(advertisedIP('10.0.0.5', '0.0.0.0', () => '172.17.0.2')).toBe('10.0.0.5');
    expect(advertisedIP('', '127.0.0.2', () => '172.17.0.2')).toBe('127.0.0.2');
    expect(advertisedIP('', '0.0.0.0', () => '172.17.0.2')).toBe('172.17.0.2');
    expect(advertisedIP('', '', () => '172.17.0.2')).toBe('172.17.0.2');
    expect(advertisedIP('', '0.0.0.0', () => undefined)).toBe('127.0.0.1');
  });

  it('takes the default-route interface, then any non-loopback IPv4, never loopback', () => {
    const ifaces = { lo: [addr('127.0.0.1', true)], eth1: [addr('192.168.16.5')], eth0: [addr('172.17.0.2')] };
    expect(defaultInterfaceIPv4(ROUTES, ifaces)).toBe('172.17.0.2');
    expect(defaultInterfaceIPv4('', ifaces)).toBe('192.168.16.5');
    expect(defaultInterfaceIPv4(ROUTES, { lo: [addr('127.0.0.1', true)] })).toBeUndefined();
  });
});
