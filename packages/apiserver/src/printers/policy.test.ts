// kubectl 1.32's columns for the policy, quota and networking kinds.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kemu/api';
import { ingressPrinter, limitRangePrinter, networkPolicyPrinter, podDisruptionBudgetPrinter, replicationControllerPrinter, resourceQuotaPrinter } from './policy.ts';

const now = Date.parse('2026-01-01T00:10:00Z');
const meta = { name: 'x', creationTimestamp: '2026-01-01T00:00:00Z' };
const names = (p: { columns: { name: string }[] }) => p.columns.map((c) => c.name);

describe('policy printers', () => {
  it('pdb: Min Available, Max Unavailable (N/A when unset), Allowed Disruptions', () => {
    expect(names(podDisruptionBudgetPrinter)).toEqual(['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']);
    expect(podDisruptionBudgetPrinter.cells({ metadata: meta, spec: { minAvailable: '50%' }, status: { disruptionsAllowed: 1 } } as KubeObject, now)).toEqual(['x', '50%', 'N/A', 1, '10m']);
  });

  it('quota: requests and limits.* split into Request and Limit, used/hard sorted by name', () => {
    expect(names(resourceQuotaPrinter)).toEqual(['Name', 'Age', 'Request', 'Limit']);
    const q = { metadata: meta, status: { hard: { pods: '2', 'limits.cpu': '2', 'requests.cpu': '1' }, used: { pods: '1', 'limits.cpu': '500m' } } } as KubeObject;
    expect(resourceQuotaPrinter.cells(q, now)).toEqual(['x', '10m', 'pods: 1/2, requests.cpu: 0/1', 'limits.cpu: 500m/2']);
  });

  it('rc, limits, ing, netpol', () => {
    expect(names(replicationControllerPrinter)).toEqual(['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers', 'Images', 'Selector']);
    expect(replicationControllerPrinter.cells({ metadata: meta, spec: { replicas: 2, selector: { b: '2', a: '1' }, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } }, status: { replicas: 1, readyReplicas: 1 } } as KubeObject, now)).toEqual(['x', 2, 1, 1, '10m', 'c', 'nginx', 'a=1,b=2']);
    expect(names(limitRangePrinter)).toEqual(['Name', 'Created At']);
    expect(ingressPrinter.cells({ metadata: meta, spec: { rules: [{ host: 'a.example' }, {}], tls: [{}] } } as KubeObject, now)).toEqual(['x', '<none>', 'a.example', '', '80, 443', '10m']);
    expect(networkPolicyPrinter.cells({ metadata: meta, spec: { podSelector: {} } } as KubeObject, now)).toEqual(['x', '<none>', '10m']);
  });
});
