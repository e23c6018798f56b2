// Stabilization and rate limits, table-driven after horizontal_test.go's normalization cases.
import { describe, expect, it } from 'vitest';
import { Normalizer, convertWithRules, scaleDownLimitWithRules, scaleUpLimitWithRules } from './normalize.ts';

const NOW = 1_000_000;
const ev = (change: number, agoS: number) => ({ change, at: NOW - agoS * 1000, outdated: false });

describe('convertWithRules (no behavior)', () => {
  it.each([
    { current: 1, desired: 10, min: 1, max: 10, want: 4, reason: 'ScaleUpLimit' },
    { current: 3, desired: 10, min: 1, max: 10, want: 6, reason: 'ScaleUpLimit' },
    { current: 6, desired: 20, min: 1, max: 10, want: 10, reason: 'TooManyReplicas' },
    { current: 3, desired: 1, min: 2, max: 10, want: 2, reason: 'TooFewReplicas' },
    { current: 3, desired: 5, min: 1, max: 10, want: 5, reason: 'DesiredWithinRange' },
  ])('$current → $desired in [$min, $max]: $want ($reason)', ({ current, desired, min, max, want, reason }) => {
    expect(convertWithRules(current, desired, min, max)).toMatchObject({ replicas: want, reason });
  });
});

describe('policy limits', () => {
  const up = { selectPolicy: 'Max' as const, policies: [{ type: 'Pods' as const, value: 4, periodSeconds: 15 }, { type: 'Percent' as const, value: 100, periodSeconds: 15 }] };
  it.each([
    { name: 'default scale up: double or +4, the larger', current: 3, ups: [], rules: up, want: 7 },
    { name: 'default scale up from 10: double', current: 10, ups: [], rules: up, want: 20 },
    { name: 'events in the period count from its start', current: 6, ups: [ev(3, 10)], rules: up, want: 7 },
    { name: 'events older than the period do not count', current: 6, ups: [ev(3, 20)], rules: up, want: 12 },
    { name: 'Min picks the smaller change', current: 10, ups: [], rules: { ...up, selectPolicy: 'Min' as const }, want: 14 },
    { name: 'Disabled keeps the count', current: 10, ups: [], rules: { ...up, selectPolicy: 'Disabled' as const }, want: 10 },
    { name: 'Percent rounds up', current: 1, ups: [], rules: { policies: [{ type: 'Percent' as const, value: 10, periodSeconds: 60 }] }, want: 2 },
  ])('scale up: $name', ({ current, ups, rules, want }) => {
    expect(scaleUpLimitWithRules(current, ups, [], rules, NOW)).toBe(want);
  });

  it.each([
    { name: '100% per 15 s: down to 0', current: 8, downs: [], rules: { policies: [{ type: 'Percent' as const, value: 100, periodSeconds: 15 }] }, want: 0 },
    { name: '50% rounds down the pods kept', current: 5, downs: [], rules: { policies: [{ type: 'Percent' as const, value: 50, periodSeconds: 15 }] }, want: 2 },
    { name: 'Pods after a recent removal', current: 6, downs: [ev(2, 30)], rules: { policies: [{ type: 'Pods' as const, value: 3, periodSeconds: 60 }] }, want: 5 },
    {
      name: 'Max: the policy removing the most',
      current: 10,
      downs: [],
      rules: { policies: [{ type: 'Pods' as const, value: 2, periodSeconds: 60 }, { type: 'Percent' as const, value: 50, periodSeconds: 60 }] },
      want: 5,
    },
  ])('scale down: $name', ({ current, downs, rules, want }) => {
    expect(scaleDownLimitWithRules(current, [], downs, rules, NOW)).toBe(want);
  });
});

describe('Normalizer', () => {
  it('without behavior keeps the highest recommendation of the downscale window', () => {
    const n = new Normalizer(300_000);
    n.recordInitial('k', 5, NOW);
    const first = n.normalize({ key: 'k', current: 5, desired: 2, min: 1, max: 10, behavior: undefined, now: NOW + 60_000 });
    expect(first).toMatchObject({ replicas: 5, ableToScale: { reason: 'ScaleDownStabilized' } });
    const later = n.normalize({ key: 'k', current: 5, desired: 2, min: 1, max: 10, behavior: undefined, now: NOW + 301_000 });
    expect(later).toMatchObject({ replicas: 2, ableToScale: { reason: 'ReadyForNewScale' }, limited: { status: 'False', reason: 'DesiredWithinRange' } });
  });

  it('with behavior: the scale-up window holds the lowest recent recommendation; an unset scale-down window is the flag', () => {
    const n = new Normalizer(60_000);
    const behavior = { scaleUp: { stabilizationWindowSeconds: 120, selectPolicy: 'Max' as const, policies: [{ type: 'Percent' as const, value: 100, periodSeconds: 15 }] }, scaleDown: { selectPolicy: 'Max' as const, policies: [{ type: 'Percent' as const, value: 100, periodSeconds: 15 }] } };
    n.recordInitial('k', 2, NOW);
    expect(n.normalize({ key: 'k', current: 2, desired: 6, min: 1, max: 10, behavior, now: NOW + 15_000 })).toMatchObject({ replicas: 2, ableToScale: { reason: 'ScaleUpStabilized' } });
    expect(n.normalize({ key: 'k', current: 2, desired: 6, min: 1, max: 10, behavior, now: NOW + 121_000 })).toMatchObject({ replicas: 4, limited: { status: 'True', reason: 'ScaleUpLimit' } });
    // Scale down: recommendations of the last 60 s (the flag) are 6, 6 → held at the current count.
    expect(n.normalize({ key: 'k', current: 4, desired: 1, min: 1, max: 10, behavior, now: NOW + 130_000 })).toMatchObject({ replicas: 4, ableToScale: { reason: 'ScaleDownStabilized' } });
    expect(n.normalize({ key: 'k', current: 4, desired: 1, min: 1, max: 10, behavior, now: NOW + 200_000 })).toMatchObject({ replicas: 1 });
  });
});
