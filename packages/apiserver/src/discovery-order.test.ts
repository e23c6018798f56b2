// Discovery order as kube-aggregator's SortedByGroupAndVersion: groups by their highest groupPriorityMinimum then
// APIService name, versions by versionPriority then Kubernetes' version order.
import { describe, expect, it } from 'vitest';
import { orderGroups, type PriorityOf } from './discovery-order.ts';

const table =
  (p: Record<string, [number, number]>): PriorityOf =>
  (group, version) =>
    p[`${version}.${group}`] ?? [1000, 100];
const gvs = (...s: string[]) => s.map((x) => ({ group: x.slice(x.indexOf('.') + 1), version: x.slice(0, x.indexOf('.')) }));

describe('orderGroups', () => {
  it('puts groups by groupPriorityMinimum (descending), then APIService name', () => {
    const p = table({ 'v1.apps': [17800, 15], 'v1.apiextensions.k8s.io': [16700, 15], 'v1.admissionregistration.k8s.io': [16700, 15], 'v1.metrics.k8s.io': [100, 100] });
    expect(orderGroups(gvs('v1.metrics.k8s.io', 'v1.zoo.example.com', 'v1.apiextensions.k8s.io', 'v1.apps', 'v1.admissionregistration.k8s.io', 'v1.bar.example.com'), p).map((g) => g.name)).toEqual([
      'apps',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'bar.example.com',
      'zoo.example.com',
      'metrics.k8s.io',
    ]);
  });

  it('places a group where its highest-priority version falls', () => {
    const p = table({ 'v1.a.example.com': [500, 15], 'v2.a.example.com': [1500, 15] });
    expect(orderGroups(gvs('v1.a.example.com', 'v1.b.example.com', 'v2.a.example.com'), p)).toEqual([
      { name: 'a.example.com', versions: ['v2', 'v1'] },
      { name: 'b.example.com', versions: ['v1'] },
    ]);
  });

  it('orders versions by versionPriority (descending), then GA, beta, alpha, then other strings', () => {
    expect(orderGroups(gvs('v1alpha1.x.io', 'foo.x.io', 'v1.x.io', 'v2beta1.x.io', 'bar.x.io', 'v1beta2.x.io', 'v10.x.io'), table({}))[0]?.versions).toEqual(['v10', 'v1', 'v2beta1', 'v1beta2', 'v1alpha1', 'bar', 'foo']);
    expect(orderGroups(gvs('v1.autoscaling', 'v2.autoscaling'), table({ 'v1.autoscaling': [17500, 15], 'v2.autoscaling': [17500, 30] }))[0]?.versions).toEqual(['v2', 'v1']);
    expect(orderGroups(gvs('v1.x.io', 'v1alpha1.x.io'), table({ 'v1alpha1.x.io': [1000, 200] }))[0]?.versions).toEqual(['v1alpha1', 'v1']);
  });
});
