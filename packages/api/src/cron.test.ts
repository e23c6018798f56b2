import { describe, expect, it } from 'vitest';
import { parseCronSchedule, timeZoneError } from './cron.ts';

const err = (spec: string) => {
  try {
    parseCronSchedule(spec);
    return '';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('cron schedules', () => {
  it("refuses what Kubernetes' robfig/cron refuses, with its words", () => {
    expect(err('* * * *')).toBe('expected exactly 5 fields, found 4: [* * * *]');
    expect(err('0 * * * * *')).toBe('expected exactly 5 fields, found 6: [0 * * * * *]');
    expect(err('61 * * * *')).toBe('end of range (61) above maximum (59): 61');
    expect(err('0 0 0 * *')).toBe('beginning of range (0) below minimum (1): 0');
    expect(err('5-2 * * * *')).toBe('beginning of range (5) beyond end of range (2): 5-2');
    expect(err('*/0 * * * *')).toBe('step of range should be a positive number: */0');
    expect(err('@fortnightly')).toBe('unrecognized descriptor: @fortnightly');
    expect(err('*/5 1-3,7 * JAN MON-FRI')).toBe('');
  });

  it('computes next times in a time zone, for macros and @every', () => {
    const from = new Date('2024-01-01T00:00:30Z');
    expect(parseCronSchedule('*/15 * * * *').next(from).toISOString()).toBe('2024-01-01T00:15:00.000Z');
    expect(parseCronSchedule('@daily', 'Asia/Tokyo').next(from).toISOString()).toBe('2024-01-01T15:00:00.000Z');
    expect(parseCronSchedule('@midnight').next(from).toISOString()).toBe('2024-01-02T00:00:00.000Z');
    expect(parseCronSchedule('@every 90s').next(from).toISOString()).toBe('2024-01-01T00:02:00.000Z');
    expect(parseCronSchedule('* * * * *').between(from, new Date('2024-01-01T03:00:00Z'), 100)).toEqual({ count: 100, last: new Date('2024-01-01T03:00:00Z') });
  });

  it('knows IANA zones', () => {
    expect(timeZoneError('Europe/Berlin')).toBeUndefined();
    expect(timeZoneError('Mars/Olympus')).toBe('unknown time zone Mars/Olympus');
  });
});
