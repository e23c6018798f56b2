import { describe, expect, it } from 'vitest';
import { parseFlags, FlagError } from './flags.ts';
import { parseDuration, formatDuration } from './duration.ts';

const specs = {
  'leader-elect': { type: 'bool', default: true, usage: 'elect' },
  'leader-elect-lease-duration': { type: 'duration', default: 15_000, usage: 'lease' },
  'secure-port': { type: 'int', default: 10257, usage: 'port' },
  master: { type: 'string', default: '', usage: 'master' },
  controllers: { type: 'stringArray', default: ['*'], usage: 'controllers' },
} as const;

describe('parseFlags', () => {
  it('parses pflag syntax with defaults', () => {
    const f = parseFlags(specs, ['--leader-elect=false', '--leader-elect-lease-duration', '2s', '--master=http://x', '--controllers=*,-foo', '--controllers', 'bar']);
    expect(f['leader-elect']).toBe(false);
    expect(f['leader-elect-lease-duration']).toBe(2000);
    expect(f['secure-port']).toBe(10257);
    expect(f.master).toBe('http://x');
    expect(f.controllers).toEqual(['*', '-foo', 'bar']);
  });
  it('rejects unknown flags and bad values', () => {
    expect(() => parseFlags(specs, ['--nope'])).toThrow(FlagError);
    expect(() => parseFlags(specs, ['--secure-port=abc'])).toThrow(/invalid argument "abc"/);
    expect(() => parseFlags(specs, ['--leader-elect-lease-duration=15'])).toThrow(/invalid duration/);
  });
});

describe('durations', () => {
  it.each([
    ['15s', 15_000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['0', 0],
  ])('%s', (text, ms) => expect(parseDuration(text)).toBe(ms));
  it('formats like Go', () => {
    expect(formatDuration(15_000)).toBe('15s');
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(500)).toBe('500ms');
  });
});
