import { describe, expect, it } from 'vitest';
import type { TopologySpreadConstraint } from '@kemu/api';
import { cacheWith, makeNode, makePod, testHandleDeps } from '../testing/wrappers.ts';
import { runFilter, runScore } from '../testing/run-plugin.ts';
import { ErrReasonConstraintsNotMatch, ErrReasonNodeLabelNotMatch, PodTopologySpread } from './pod-topology-spread.ts';

const zoneNodes = () => [
  makeNode('a1', { labels: { zone: 'a' } }),
  makeNode('a2', { labels: { zone: 'a' } }),
  makeNode('b1', { labels: { zone: 'b' } }),
  makeNode('nolabel'),
];
const web = { app: 'web' };
const spread = (o: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint => ({
  maxSkew: 1,
  topologyKey: 'zone',
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: web },
  ...o,
});
const running = (name: string, node: string, labels = web) => makePod(name, { nodeName: node, labels });
const notMatch = { code: 'Unschedulable', reasons: ErrReasonConstraintsNotMatch };
const missing = { code: 'UnschedulableAndUnresolvable', reasons: ErrReasonNodeLabelNotMatch };

describe('PodTopologySpread filter', () => {
  const cases: { name: string; pods: ReturnType<typeof makePod>[]; c: TopologySpreadConstraint; nodes?: ReturnType<typeof makeNode>[]; want: Record<string, unknown> }[] = [
    {
      name: 'empty cluster: every labelled zone fits',
      pods: [],
      c: spread(),
      want: { a1: 'ok', a2: 'ok', b1: 'ok', nolabel: missing },
    },
    {
      name: 'zone a has one more: only b fits',
      pods: [running('x', 'a1')],
      c: spread(),
      want: { a1: notMatch, a2: notMatch, b1: 'ok', nolabel: missing },
    },
    {
      name: 'maxSkew 2 allows a',
      pods: [running('x', 'a1')],
      c: spread({ maxSkew: 2 }),
      want: { a1: 'ok', a2: 'ok', b1: 'ok', nolabel: missing },
    },
    {
      name: 'non-matching pods do not count',
      pods: [running('x', 'a1', { app: 'db' })],
      c: spread(),
      want: { a1: 'ok', a2: 'ok', b1: 'ok', nolabel: missing },
    },
    {
      name: 'minDomains 3 with 2 domains: global min is 0',
      pods: [running('x', 'a1'), running('y', 'b1')],
      c: spread({ minDomains: 3 }),
      want: { a1: notMatch, a2: notMatch, b1: notMatch, nolabel: missing },
    },
    {
      name: 'hostname key',
      pods: [running('x', 'a1')],
      c: spread({ topologyKey: 'kubernetes.io/hostname' }),
      want: { a1: notMatch, a2: 'ok', b1: 'ok', nolabel: 'ok' },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const cache = cacheWith(c.nodes ?? zoneNodes(), c.pods);
      const pod = makePod('p', { labels: web, topologySpreadConstraints: [c.c] });
      expect(runFilter(new PodTopologySpread(testHandleDeps(cache)), pod, cache)).toEqual(c.want);
    });

  it('nodeAffinityPolicy Honor ignores zones the pod cannot use', () => {
    // Zone b (empty) is excluded by the nodeSelector, so the min is zone c's 1 and zone a's 1 → skew 1 ok.
    const nodes = [makeNode('a1', { labels: { zone: 'a', ok: 'y' } }), makeNode('b1', { labels: { zone: 'b' } }), makeNode('c1', { labels: { zone: 'c', ok: 'y' } })];
    const cache = cacheWith(nodes, [running('x', 'a1'), running('y', 'c1')]);
    const honor = makePod('p', { labels: web, nodeSelector: { ok: 'y' }, topologySpreadConstraints: [spread()] });
    expect(runFilter(new PodTopologySpread(testHandleDeps(cache)), honor, cache).a1).toBe('ok');
    const ignore = makePod('p', { labels: web, nodeSelector: { ok: 'y' }, topologySpreadConstraints: [spread({ nodeAffinityPolicy: 'Ignore' })] });
    expect(runFilter(new PodTopologySpread(testHandleDeps(cache)), ignore, cache).a1).toEqual(notMatch);
  });

  it('nodeTaintsPolicy Honor ignores tainted nodes', () => {
    const nodes = [makeNode('a1', { labels: { zone: 'a' } }), makeNode('b1', { labels: { zone: 'b' }, taints: [{ key: 'x', effect: 'NoSchedule' }] })];
    const cache = cacheWith(nodes, [running('x', 'a1')]);
    const honor = makePod('p', { labels: web, topologySpreadConstraints: [spread({ nodeTaintsPolicy: 'Honor' })] });
    expect(runFilter(new PodTopologySpread(testHandleDeps(cache)), honor, cache).a1).toBe('ok');
    const ignore = makePod('p', { labels: web, topologySpreadConstraints: [spread()] });
    expect(runFilter(new PodTopologySpread(testHandleDeps(cache)), ignore, cache).a1).toEqual(notMatch);
  });
});

describe('PodTopologySpread score', () => {
  it('ScheduleAnyway prefers the emptier zone', () => {
    const cache = cacheWith(zoneNodes().slice(0, 3), [running('x', 'a1'), running('y', 'a2')]);
    const pod = makePod('p', { labels: web, topologySpreadConstraints: [spread({ whenUnsatisfiable: 'ScheduleAnyway' })] });
    const s = runScore(new PodTopologySpread(testHandleDeps(cache)), pod, cache);
    expect(s).not.toBe('skip');
    const r = s as Record<string, number>;
    expect(r.b1).toBe(100);
    expect(r.a1).toBeLessThan(r.b1 as number);
  });
  it('default constraints use the selecting workloads; none → skip', () => {
    const cache = cacheWith(zoneNodes().slice(0, 3), [running('x', 'a1')]);
    const noLister = runScore(new PodTopologySpread(testHandleDeps(cache)), makePod('p', { labels: web }), cache);
    expect(noLister).toBe('skip');
    const lister = { selectorsFor: () => [{ matchLabels: web }] };
    const s = runScore(new PodTopologySpread(testHandleDeps(cache, { selectorLister: lister })), makePod('p', { labels: web }), cache) as Record<string, number>;
    expect(s.a1).toBeLessThan(s.a2 as number);
  });
});
