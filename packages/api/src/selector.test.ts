import { describe, expect, it } from 'vitest';
import type { LabelSelector } from './meta.ts';
import {
  formatLabelSelector,
  labelSelectorAsSelector,
  labelSelectorToString,
  matchesLabelSelector,
  selectorFromSet,
  selectorMatches,
} from './selector.ts';

const web = { app: 'web', tier: 'frontend' };

describe('matchesLabelSelector', () => {
  const cases: [string, LabelSelector | undefined | null, Record<string, string> | undefined, boolean][] = [
    ['nil selector matches nothing', undefined, web, false],
    ['null selector matches nothing', null, web, false],
    ['empty selector matches everything', {}, web, true],
    ['empty selector matches no labels', {}, undefined, true],
    ['matchLabels hit', { matchLabels: { app: 'web' } }, web, true],
    ['matchLabels miss', { matchLabels: { app: 'db' } }, web, false],
    ['matchLabels missing key', { matchLabels: { x: 'y' } }, web, false],
    ['In hit', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['backend', 'frontend'] }] }, web, true],
    ['In miss', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['backend'] }] }, web, false],
    ['NotIn absent key matches', { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, web, true],
    ['NotIn miss', { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }, web, false],
    ['Exists', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, web, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, web, false],
    ['AND of both', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, web, true],
    ['In with no values is invalid → no match', { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, web, false],
  ];
  it.each(cases)('%s', (_name, sel, labels, want) => {
    expect(matchesLabelSelector(sel, labels)).toBe(want);
  });
});

describe('labelSelectorToString', () => {
  it.each([
    [{}, ''],
    [{ matchLabels: { b: '2', a: '1' } }, 'a=1,b=2'],
    [{ matchExpressions: [{ key: 'x', operator: 'In' as const, values: ['z', 'y'] }] }, 'x in (y,z)'],
    [{ matchExpressions: [{ key: 'x', operator: 'NotIn' as const, values: ['y'] }] }, 'x notin (y)'],
    [{ matchExpressions: [{ key: 'x', operator: 'Exists' as const }] }, 'x'],
    [{ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' as const }] }, '!x'],
  ])('%j → %s', (sel, want) => {
    expect(labelSelectorToString(sel)).toBe(want);
  });

  it('formatLabelSelector prints <none> for empty', () => {
    expect(formatLabelSelector({})).toBe('<none>');
    expect(formatLabelSelector({ matchLabels: { app: 'web' } })).toBe('app=web');
  });

  it('rejects unknown operators', () => {
    expect(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' as 'In' }] })).toThrow(
      'not a valid label selector operator',
    );
  });

  it('selectorFromSet', () => {
    expect(selectorMatches(selectorFromSet({ app: 'web' }), web)).toBe(true);
    expect(selectorMatches(selectorFromSet({}), web)).toBe(true);
  });
});
