// metav1.Time's parse errors, as Go's time.Parse(time.RFC3339, s) words them.
import { describe, expect, it } from 'vitest';
import { rfc3339ParseError } from './go-time.ts';

describe('rfc3339ParseError', () => {
  it.each(['2024-01-01T00:00:00Z', '2024-02-29T23:59:59.123456+02:00', '2023-12-31T01:02:03-05:30', '2024-01-01T1:00:00Z'])('%s parses', (s) => {
    expect(rfc3339ParseError(s)).toBeUndefined();
  });
  it.each([
    ['yesterday', 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
    ['2024-01-01', 'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'],
    ['2024-1-01T00:00:00Z', 'parsing time "2024-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T00:00:00Z" as "01"'],
    ['2024-13-01T00:00:00Z', 'parsing time "2024-13-01T00:00:00Z": month out of range'],
    ['2023-02-29T00:00:00Z', 'parsing time "2023-02-29T00:00:00Z": day out of range'],
    ['2024-01-01T00:00:00', 'parsing time "2024-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"'],
    ['2024-01-01T00:00:00Zjunk', 'parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk"'],
  ])('%s', (s, message) => {
    expect(rfc3339ParseError(s)).toBe(message);
  });
});
