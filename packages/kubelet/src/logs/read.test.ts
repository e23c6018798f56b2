import { describe, expect, it } from 'vitest';
import { LogQueryError, LogWriter, logTimestamp, parseLogOptions, sinceOf, tailOf } from './read.ts';
import type { LogRecord } from './store.ts';

const T0 = Date.UTC(2026, 11, 3, 16, 0, 0, 123);
const recs: LogRecord[] = [0, 1, 2, 3].map((i) => ({ seq: i, ts: T0 + i * 1000, stream: 'stdout', text: `line ${i}\n` }));
const read = (query: string, now = T0 + 3000) => {
  const o = parseLogOptions(new URLSearchParams(query));
  return new LogWriter(o, sinceOf(o, now)).format(tailOf(recs, o.tailLines));
};

describe('parseLogOptions', () => {
  it('decodes the kubelet query, the legacy tail included', () => {
    expect(parseLogOptions(new URLSearchParams('follow=true&previous=1&timestamps=false&tail=5'))).toEqual({ follow: true, previous: true, timestamps: false, tailLines: 5 });
    expect(parseLogOptions(new URLSearchParams('tailLines=3&tail=all')).tailLines).toBeUndefined();
    expect(parseLogOptions(new URLSearchParams('sinceTime=2026-12-03T16:00:01Z')).sinceTime).toBe(Date.UTC(2026, 11, 3, 16, 0, 1));
  });

  it.each([
    ['tailLines=x', 400, '{"message": "Unable to decode query."}'],
    ['sinceTime=yesterday', 400, '{"message": "Unable to decode query."}'],
    ['tailLines=-1', 422, '{"message": "Invalid request."}'],
    ['limitBytes=0', 422, '{"message": "Invalid request."}'],
    ['sinceSeconds=0', 422, '{"message": "Invalid request."}'],
    ['sinceSeconds=5&sinceTime=2026-12-03T16:00:01Z', 422, '{"message": "Invalid request."}'],
  ])('%s → %d', (q, status, message) => {
    let err: unknown;
    try {
      parseLogOptions(new URLSearchParams(q));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LogQueryError);
    expect([(err as LogQueryError).status, (err as LogQueryError).message]).toEqual([status, message]);
  });
});

describe('reading as ReadLogs', () => {
  it('timestamps in RFC3339 with nine digits', () => {
    expect(logTimestamp(T0)).toBe('2026-12-03T16:00:00.123000000Z');
    expect(read('timestamps=true&tailLines=1')).toBe('2026-12-03T16:00:03.123000000Z line 3\n');
  });

  it('tail first, then since, then the byte limit', () => {
    expect(read('')).toBe('line 0\nline 1\nline 2\nline 3\n');
    expect(read('tailLines=2')).toBe('line 2\nline 3\n');
    expect(read('tailLines=0')).toBe('');
    expect(read('sinceSeconds=2')).toBe('line 1\nline 2\nline 3\n');
    expect(read('tailLines=3&sinceSeconds=1')).toBe('line 2\nline 3\n');
    expect(read('sinceTime=2026-12-03T16:00:02Z')).toBe('line 2\nline 3\n');
    expect(read('limitBytes=10')).toBe('line 0\nlin');
    expect(read('tailLines=1&timestamps=true&limitBytes=5')).toBe('2026-');
  });
});
