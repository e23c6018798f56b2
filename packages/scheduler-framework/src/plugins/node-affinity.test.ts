import { describe, expect, it } from 'vitest';
import type { NodeSelectorRequirement } from '@kemu/api';
import { CycleState } from '../framework/cycle-state.ts';
import { PreFilterResult } from '../framework/interface.ts';
import { cacheWith, makeNode, makePod, pi } from '../testing/wrappers.ts';
import { runFilter, runScore } from '../testing/run-plugin.ts';
import { ErrReasonPod, NodeAffinity } from './node-affinity.ts';

const reject = { code: 'UnschedulableAndUnresolvable', reasons: ErrReasonPod };
const req = (...exprs: NodeSelectorRequirement[]) => ({
  nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: exprs }] } },
});

describe('NodeAffinity filter', () => {
  const node = makeNode('n1', { labels: { zone: 'a', gen: '5', disk: 'ssd' } });
  const cases: { name: string; pod: ReturnType<typeof makePod>; want: unknown }[] = [
    { name: 'no constraints', pod: makePod('p'), want: 'ok' },
    { name: 'nodeSelector match', pod: makePod('p', { nodeSelector: { zone: 'a' } }), want: 'ok' },
    { name: 'nodeSelector mismatch', pod: makePod('p', { nodeSelector: { zone: 'b' } }), want: reject },
    { name: 'In', pod: makePod('p', { affinity: req({ key: 'zone', operator: 'In', values: ['a', 'b'] }) }), want: 'ok' },
    { name: 'NotIn', pod: makePod('p', { affinity: req({ key: 'zone', operator: 'NotIn', values: ['a'] }) }), want: reject },
    { name: 'Exists', pod: makePod('p', { affinity: req({ key: 'disk', operator: 'Exists' }) }), want: 'ok' },
    { name: 'DoesNotExist', pod: makePod('p', { affinity: req({ key: 'disk', operator: 'DoesNotExist' }) }), want: reject },
    { name: 'Gt', pod: makePod('p', { affinity: req({ key: 'gen', operator: 'Gt', values: ['4'] }) }), want: 'ok' },
    { name: 'Lt', pod: makePod('p', { affinity: req({ key: 'gen', operator: 'Lt', values: ['5'] }) }), want: reject },
    {
      name: 'terms are ORed',
      pod: makePod('p', {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['x'] }] }, { matchExpressions: [{ key: 'disk', operator: 'Exists' }] }],
            },
          },
        },
      }),
      want: 'ok',
    },
    {
      name: 'matchFields metadata.name',
      pod: makePod('p', {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }] } } },
      }),
      want: reject,
    },
    {
      name: 'nodeSelector and affinity both required',
      pod: makePod('p', { nodeSelector: { zone: 'b' }, affinity: req({ key: 'disk', operator: 'Exists' }) }),
      want: reject,
    },
  ];
  for (const c of cases) it(c.name, () => expect(runFilter(new NodeAffinity(), c.pod, cacheWith([node])).n1).toEqual(c.want));

  it('PreFilter narrows to metadata.name nodes', () => {
    const pod = makePod('p', {
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }] } } },
    });
    const r = new NodeAffinity().preFilter(new CycleState(), pi(pod));
    expect(r).toBeInstanceOf(PreFilterResult);
    expect([...(r as PreFilterResult).nodeNames]).toEqual(['n2']);
  });
});

describe('NodeAffinity score', () => {
  it('sums preferred weights and normalizes', () => {
    const cache = cacheWith([makeNode('a', { labels: { zone: 'a', ssd: 'y' } }), makeNode('b', { labels: { zone: 'b' } }), makeNode('c')]);
    const pod = makePod('p', {
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 2, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] } },
            { weight: 6, preference: { matchExpressions: [{ key: 'ssd', operator: 'Exists' }] } },
          ],
        },
      },
    });
    expect(runScore(new NodeAffinity(), pod, cache)).toEqual({ a: 100, b: 25, c: 0 });
    expect(runScore(new NodeAffinity(), makePod('q'), cache)).toBe('skip');
  });
});
