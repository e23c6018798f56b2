import { describe, expect, it } from 'vitest';
import type { Pod } from '@kemu/api';
import { admitPod, parseAllocatable, podRequests } from './admission.ts';

function pod(requests: Record<string, string>, init?: Record<string, string>): Pod {
  return {
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      containers: [{ name: 'c', image: 'nginx', resources: { requests } }],
      ...(init ? { initContainers: [{ name: 'i', image: 'busybox', resources: { requests: init } }] } : {}),
    },
  };
}

describe('admission', () => {
  const alloc = parseAllocatable({ cpu: '2', memory: '4Gi', pods: '3', 'ephemeral-storage': '10Gi' });

  it('computes requests with init containers and units', () => {
    expect(podRequests(pod({ cpu: '500m', memory: '1Gi' }, { cpu: '1' }))).toEqual({ cpu: 1000, memory: 2 ** 30, 'ephemeral-storage': 0 });
  });

  it('admits what fits', () => {
    expect(admitPod(pod({ cpu: '1' }), alloc, [podRequests(pod({ cpu: '1' }))])).toEqual({ admit: true });
  });

  it('rejects cpu with the kubelet reason and message', () => {
    const r = admitPod(pod({ cpu: '1500m' }), alloc, [podRequests(pod({ cpu: '1' }))]);
    expect(r).toEqual({
      admit: false,
      reason: 'OutOfcpu',
      message: "Node didn't have enough resource: cpu, requested: 1500, used: 1000, capacity: 2000",
    });
  });

  it('rejects memory and pods', () => {
    expect(admitPod(pod({ memory: '5Gi' }), alloc, []).reason).toBe('OutOfmemory');
    const three = [pod({}), pod({}), pod({})].map(podRequests);
    const r = admitPod(pod({}), alloc, three);
    expect(r.reason).toBe('OutOfpods');
    expect(r.message).toBe("Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3");
  });
});
