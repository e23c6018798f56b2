import { describe, expect, it } from 'vitest';
import { cpuMillis, intValue, parseQuantity, QuantityError, tryParseQuantity } from './quantity.ts';

describe('parseQuantity', () => {
  it.each([
    ['100m', 0.1],
    ['1', 1],
    ['0', 0],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['1Ki', 1024],
    ['1Mi', 1048576],
    ['2Gi', 2 * 2 ** 30],
    ['1Ti', 2 ** 40],
    ['1Pi', 2 ** 50],
    ['1Ei', 2 ** 60],
    ['1k', 1000],
    ['1M', 1e6],
    ['3G', 3e9],
    ['1T', 1e12],
    ['1P', 1e15],
    ['1E', 1e18],
    ['1e3', 1000],
    ['1E3', 1000],
    ['5e-3', 0.005],
    ['-2', -2],
    ['+2', 2],
    ['250n', 250e-9],
    ['10u', 10e-6],
    [110, 110],
  ] as const)('%s → %d', (input, want) => {
    expect(parseQuantity(input)).toBeCloseTo(want, 12);
  });

  it.each(['', 'abc', '1x', '1KiB', 'Mi', '1..2', '1 Mi', '--1'])('rejects %j', (input) => {
    expect(() => parseQuantity(input)).toThrow(QuantityError);
    expect(tryParseQuantity(input)).toBeUndefined();
  });

  it('has the Kubernetes message', () => {
    expect(() => parseQuantity('x')).toThrow(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });
});

describe('cpuMillis / intValue', () => {
  it.each([
    ['100m', 100],
    ['0.1', 100],
    ['2', 2000],
    ['1.5', 1500],
    ['1n', 1],
    [4, 4000],
  ] as const)('cpuMillis(%s) = %d', (q, want) => expect(cpuMillis(q)).toBe(want));

  it.each([
    ['1Gi', 2 ** 30],
    ['1.5k', 1500],
    ['100m', 1],
    ['110', 110],
  ] as const)('intValue(%s) = %d', (q, want) => expect(intValue(q)).toBe(want));
});
