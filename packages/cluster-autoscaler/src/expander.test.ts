import { describe, expect, it } from 'vitest';
import { makePod } from '@kemu/scheduler-framework/testing/wrappers';
import { choose, parseExpanders, waste, type Option } from './expander.ts';
import { fakeNode } from './testing/fake-provider.ts';

const option = (groupId: string, cpu: string, nodeCount: number, pods: number, podCpu = '1'): Option => ({
  groupId,
  nodeCount,
  template: fakeNode(`t-${groupId}`, { cpu, memory: '8Gi' }),
  pods: Array.from({ length: pods }, (_, i) => makePod(`${groupId}-${i}`, { requests: { cpu: podCpu, memory: '1Gi' } })),
});

describe('expanders', () => {
  it('least-waste picks the option leaving the least idle cpu and memory', () => {
    const big = option('big', '16', 1, 2);
    const small = option('small', '2', 1, 2);
    expect(waste(small)).toBeCloseTo(0 + 0.75);
    expect(choose([big, small], ['least-waste'])?.groupId).toBe('small');
  });
  it('most-pods picks the option scheduling the most pods', () => {
    expect(choose([option('a', '4', 1, 1), option('b', '4', 2, 5)], ['most-pods'])?.groupId).toBe('b');
  });
  it('random breaks ties with the injected source; chained expanders narrow in order', () => {
    const opts = [option('a', '4', 1, 3), option('b', '4', 1, 3), option('c', '4', 1, 1)];
    expect(choose(opts, ['random'], () => 0.99)?.groupId).toBe('c');
    expect(choose(opts, ['most-pods', 'random'], () => 0.99)?.groupId).toBe('b');
    expect(choose([], ['random'])).toBeUndefined();
  });
  it('--expander accepts a list and refuses unknown names', () => {
    expect(parseExpanders('least-waste,random')).toEqual(['least-waste', 'random']);
    expect(() => parseExpanders('priority')).toThrow('Expander priority not supported by the kemu cloud provider');
    expect(() => parseExpanders('cheapest')).toThrow('Expander cheapest not supported');
  });
});
