import { describe, expect, it } from 'vitest';
import { cacheWith, makeNode, makePod } from '../testing/wrappers.ts';
import { runFilter, runScore } from '../testing/run-plugin.ts';
import { TaintToleration, untoleratedTaintReason } from './taint-toleration.ts';

const cp = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' as const };

describe('TaintToleration filter', () => {
  const cases = [
    { name: 'no taints', taints: [], tols: undefined, want: 'ok' },
    {
      name: 'untolerated NoSchedule',
      taints: [cp],
      tols: undefined,
      want: { code: 'UnschedulableAndUnresolvable', reasons: 'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }' },
    },
    { name: 'Exists toleration', taints: [cp], tols: [{ key: cp.key, operator: 'Exists' as const }], want: 'ok' },
    {
      name: 'Equal with wrong value',
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoExecute' as const }],
      tols: [{ key: 'dedicated', operator: 'Equal' as const, value: 'cpu' }],
      want: { code: 'UnschedulableAndUnresolvable', reasons: untoleratedTaintReason('dedicated', 'gpu') },
    },
    { name: 'PreferNoSchedule does not filter', taints: [{ key: 'a', effect: 'PreferNoSchedule' as const }], tols: undefined, want: 'ok' },
    { name: 'empty key Exists tolerates all', taints: [cp], tols: [{ operator: 'Exists' as const }], want: 'ok' },
    {
      name: 'effect mismatch',
      taints: [cp],
      tols: [{ key: cp.key, operator: 'Exists' as const, effect: 'NoExecute' as const }],
      want: { code: 'UnschedulableAndUnresolvable', reasons: untoleratedTaintReason(cp.key, undefined) },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const cache = cacheWith([makeNode('n1', { taints: c.taints })]);
      expect(runFilter(new TaintToleration(), makePod('p', { tolerations: c.tols }), cache).n1).toEqual(c.want);
    });
});

describe('TaintToleration score', () => {
  it('prefers nodes with fewer untolerated PreferNoSchedule taints', () => {
    const pref = (k: string) => ({ key: k, effect: 'PreferNoSchedule' as const });
    const cache = cacheWith([
      makeNode('clean'),
      makeNode('one', { taints: [pref('a')] }),
      makeNode('two', { taints: [pref('a'), pref('b')] }),
      makeNode('tolerated', { taints: [pref('c')] }),
    ]);
    const pod = makePod('p', { tolerations: [{ key: 'c', operator: 'Exists' }] });
    expect(runScore(new TaintToleration(), pod, cache)).toEqual({ clean: 100, one: 50, two: 0, tolerated: 100 });
  });
});
