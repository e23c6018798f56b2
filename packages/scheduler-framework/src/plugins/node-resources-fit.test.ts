import { describe, expect, it } from 'vitest';
import { cacheWith, makeNode, makePod } from '../testing/wrappers.ts';
import { runFilter, runScore } from '../testing/run-plugin.ts';
import { NodeResourcesFit, defaultResourceSpecs } from './node-resources-fit.ts';
import { BalancedAllocation } from './balanced-allocation.ts';

const node = (used: Record<string, string>[] = [], alloc = { cpu: '2', memory: '4Gi', pods: '3', 'example.com/gpu': '1' }) =>
  cacheWith(
    [makeNode('n1', { allocatable: alloc })],
    used.map((r, i) => makePod(`used-${i}`, { nodeName: 'n1', requests: r })),
  );

describe('NodeResourcesFit filter', () => {
  const cases: { name: string; used?: Record<string, string>[]; req?: Record<string, string>; want: unknown }[] = [
    { name: 'fits', req: { cpu: '1', memory: '1Gi' }, want: 'ok' },
    { name: 'best effort fits', want: 'ok' },
    { name: 'insufficient cpu', used: [{ cpu: '1500m' }], req: { cpu: '600m' }, want: { code: 'Unschedulable', reasons: 'Insufficient cpu' } },
    {
      name: 'insufficient cpu and memory',
      req: { cpu: '3', memory: '5Gi' },
      want: { code: 'Unschedulable', reasons: 'Insufficient cpu, Insufficient memory' },
    },
    { name: 'extended resource', req: { 'example.com/gpu': '2' }, want: { code: 'Unschedulable', reasons: 'Insufficient example.com/gpu' } },
    { name: 'too many pods', used: [{}, {}, {}], want: { code: 'Unschedulable', reasons: 'Too many pods' } },
    { name: 'exact fit', used: [{ cpu: '1' }], req: { cpu: '1' }, want: 'ok' },
  ];
  for (const c of cases)
    it(c.name, () => expect(runFilter(new NodeResourcesFit(), makePod('p', { requests: c.req }), node(c.used)).n1).toEqual(c.want));

  it('counts the largest init container and overhead', () => {
    const pod = makePod('p', {
      containers: [{ name: 'a', resources: { requests: { cpu: '500m' } } }],
      initContainers: [{ name: 'i', resources: { requests: { cpu: '1800m' } } }],
      overhead: { cpu: '250m' },
    });
    expect(runFilter(new NodeResourcesFit(), pod, node()).n1).toEqual({ code: 'Unschedulable', reasons: 'Insufficient cpu' });
  });

  it('sidecars add to the app containers', () => {
    const pod = makePod('p', {
      containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }],
      initContainers: [{ name: 's', restartPolicy: 'Always', resources: { requests: { cpu: '1100m' } } }],
    });
    expect(runFilter(new NodeResourcesFit(), pod, node()).n1).toEqual({ code: 'Unschedulable', reasons: 'Insufficient cpu' });
  });
});

describe('NodeResourcesFit score', () => {
  const cache = cacheWith(
    [makeNode('empty', { allocatable: { cpu: '4', memory: '4Gi', pods: '10' } }), makeNode('half', { allocatable: { cpu: '4', memory: '4Gi', pods: '10' } })],
    [makePod('x', { nodeName: 'half', requests: { cpu: '2', memory: '2Gi' } })],
  );
  const pod = makePod('p', { requests: { cpu: '1', memory: '1Gi' } });
  it('LeastAllocated prefers the emptier node', () => {
    expect(runScore(new NodeResourcesFit(), pod, cache)).toEqual({ empty: 75, half: 25 });
  });
  it('MostAllocated prefers the fuller node', () => {
    const p = new NodeResourcesFit({ ignoredResources: [], ignoredResourceGroups: [], scoringStrategy: { type: 'MostAllocated', resources: defaultResourceSpecs() } });
    expect(runScore(p, pod, cache)).toEqual({ empty: 25, half: 75 });
  });
  it('RequestedToCapacityRatio follows the shape', () => {
    const p = new NodeResourcesFit({
      ignoredResources: [],
      ignoredResourceGroups: [],
      scoringStrategy: {
        type: 'RequestedToCapacityRatio',
        resources: defaultResourceSpecs(),
        requestedToCapacityRatio: { shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }] },
      },
    });
    expect(runScore(p, pod, cache)).toEqual({ empty: 25, half: 75 });
  });
  it('best-effort pods count 100m / 200Mi', () => {
    const c = cacheWith([makeNode('n', { allocatable: { cpu: '1', memory: '1000Mi', pods: '10' } })]);
    // cpu (1000-100)*100/1000 = 90, memory (1000-200)*100/1000 = 80 → 85
    expect(runScore(new NodeResourcesFit(), makePod('be'), c)).toEqual({ n: 85 });
  });
});

describe('NodeResourcesBalancedAllocation', () => {
  it('prefers balanced fractions and skips best-effort pods', () => {
    const cache = cacheWith([
      makeNode('a', { allocatable: { cpu: '4', memory: '4Gi', pods: '10' } }),
      makeNode('b', { allocatable: { cpu: '4', memory: '16Gi', pods: '10' } }),
    ]);
    const pod = makePod('p', { requests: { cpu: '2', memory: '2Gi' } });
    // a: 0.5/0.5 → 100; b: 0.5/0.125 → std 0.1875 → 81
    expect(runScore(new BalancedAllocation(), pod, cache)).toEqual({ a: 100, b: 81 });
    expect(runScore(new BalancedAllocation(), makePod('be'), cache)).toBe('skip');
  });
});
