import type { KubeObject } from '@kemu/api';
import { formatMicroTime } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import { desiredSlices, desiredSubsets, ENDPOINT_ANNOTATION, liveEndpoints, parseEndpoint } from './endpoint-reconciler.ts';

const NOW = Date.parse('2026-12-02T12:00:00Z');
const lease = (endpoint: string, renewedAgoMs: number, durationSeconds = 3600): KubeObject => ({
  metadata: { name: `apiserver-${endpoint}`, labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver' }, annotations: { [ENDPOINT_ANNOTATION]: endpoint } },
  spec: { renewTime: formatMicroTime(NOW - renewedAgoMs), leaseDurationSeconds: durationSeconds },
});

describe('endpoint reconciler', () => {
  it('parses the endpoints recorded on identity Leases', () => {
    expect(parseEndpoint('1.2.3.4:6443')).toEqual({ ip: '1.2.3.4', port: 6443 });
    for (const bad of ['1.2.3:6443', '1.2.3.400:1', '1.2.3.4:0', 'x', 5]) expect(parseEndpoint(bad)).toBeUndefined();
  });

  it('keeps leases renewed within the TTL (or their own shorter duration), always itself', () => {
    const self = { ip: '10.0.0.1', port: 6443 };
    const leases = [
      lease('10.0.0.2:6443', 14_000),
      lease('10.0.0.3:6443', 16_000), // older than the 15 s TTL
      lease('10.0.0.4:6443', 3_000, 2), // past its own 2 s duration
      { ...lease('10.0.0.5:6443', 0), metadata: { name: 'other', annotations: { [ENDPOINT_ANNOTATION]: '10.0.0.5:6443' } } }, // not an identity lease
    ];
    expect(liveEndpoints(leases, NOW, 15_000, self).map((e) => e.ip).sort()).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  it('groups addresses by port: one subset per port, the largest group in the slice named kubernetes', () => {
    const eps = [
      { ip: '127.0.0.1', port: 7002 },
      { ip: '10.0.0.10', port: 6443 },
      { ip: '10.0.0.9', port: 6443 },
    ];
    expect(desiredSubsets(eps)).toEqual([
      { addresses: [{ ip: '10.0.0.9' }, { ip: '10.0.0.10' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] },
      { addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 7002, protocol: 'TCP' }] },
    ]);
    const slices = desiredSlices(eps);
    expect([...slices.keys()]).toEqual(['kubernetes', 'kubernetes-7002']);
    expect(slices.get('kubernetes')?.endpoints).toEqual([
      { addresses: ['10.0.0.9'], conditions: { ready: true } },
      { addresses: ['10.0.0.10'], conditions: { ready: true } },
    ]);
  });
});
