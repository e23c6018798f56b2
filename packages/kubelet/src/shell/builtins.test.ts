import { describe, expect, it } from 'vitest';
import { echo, printf, seq, test } from './builtins.ts';
import { dateCommand, strftime } from './date.ts';
import { evaluate } from './arith.ts';

const fs = { file: (p: string) => (p === '/etc/hostname' ? 'h\n' : undefined), isDir: (p: string) => p === '/tmp' };

describe('builtins', () => {
  it('echo', () => {
    expect(echo(['-n', 'a', 'b']).out).toBe('a b');
    expect(echo(['-e', 'a\\nb\\c', 'x']).out).toBe('a\nb');
    expect(echo(['a\\nb']).out).toBe('a\\nb\n');
  });
  it('printf', () => {
    expect(printf(['%s-%d|%5s|%-3s|%03d\\n', 'a', '7', 'r', 'l', '5']).out).toBe('a-7|    r|l  |005\n');
    expect(printf(['%s\\n', 'a', 'b', 'c']).out).toBe('a\nb\nc\n');
    expect(printf(['100%%\\n']).out).toBe('100%\n');
    expect(printf(['%d\\n', 'x'])).toMatchObject({ out: '0\n', status: 1, err: "printf: invalid number 'x'\n" });
  });
  it('test', () => {
    expect(test(['3', '-lt', '4', ']'], fs, '[').status).toBe(0);
    expect(test(['3', '-ge', '4'], fs).status).toBe(1);
    expect(test(['-f', '/etc/hostname', '-a', '-d', '/tmp'], fs).status).toBe(0);
    expect(test(['a', '!=', 'a'], fs).status).toBe(1);
    expect(test(['x', '-eq', '1'], fs)).toMatchObject({ status: 2, err: "sh: test: invalid number 'x'\n" });
    expect(test(['1', '-eq', '1'], fs, '[')).toMatchObject({ status: 2, err: '[: missing ]\n' });
  });
  it('seq', () => {
    expect(seq(['3'], 10).out).toBe('1\n2\n3\n');
    expect(seq(['5', '-2', '1'], 10).out).toBe('5\n3\n1\n');
  });
  it('date', () => {
    const ms = Date.UTC(2026, 0, 5, 9, 4, 3, 250);
    expect(dateCommand([], ms).out).toBe('Mon Jan  5 09:04:03 UTC 2026\n');
    expect(strftime('%F %T %j %s', ms)).toBe(`2026-01-05 09:04:03 005 ${Math.floor(ms / 1000)}`);
  });
  it('arithmetic', () => {
    const vars: Record<string, string> = { i: '4', j: 'i' };
    expect(evaluate('i + 1', (n) => vars[n])).toBe(5);
    expect(evaluate('(i * 3) % 5 == 2 && !0', (n) => vars[n])).toBe(1);
    expect(evaluate('j * 2 - -1', (n) => vars[n])).toBe(9);
    expect(evaluate('7 / 2', () => undefined)).toBe(3);
  });
});
