// CronJob schedules: the standard 5-field cron syntax and the descriptors (@hourly … @every <duration>) that
// Kubernetes accepts (robfig/cron's ParseStandard), computed by cron-parser (maintained, time zones through
// luxon). robfig's own checks come first so errors read as Kubernetes words them.
import { CronExpressionParser } from 'cron-parser';

export interface CronSchedule {
  /** The first scheduled time strictly after `after`. */
  next(after: Date): Date;
  /** Scheduled times in (after, until]: how many (counting stops at `cap`) and the last one. */
  between(after: Date, until: Date, cap: number): { count: number; last?: Date };
}

/** between() for schedules that only know next(). */
function countBetween(next: (d: Date) => Date, after: Date, until: Date, cap: number): { count: number; last?: Date } {
  let count = 0;
  let last: Date | undefined;
  for (let t = next(after); t.getTime() <= until.getTime() && count < cap; t = next(t)) {
    count++;
    last = t;
  }
  return last ? { count, last } : { count };
}

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const DURATION_UNITS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };

/** Go's time.ParseDuration for the @every descriptor (positive durations only). */
function parseGoDuration(s: string): number | undefined {
  const re = /(\d+(?:\.\d*)?|\.\d+)(h|ms|m|s|us|µs|ns)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  let pos = 0;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * (DURATION_UNITS[m[2] ?? ''] ?? 0);
    pos = re.lastIndex;
  }
  return pos === s.length && s.length > 0 ? total : undefined;
}

const FIELD_RE = /^[0-9A-Za-z*?,/-]+$/;
/** Bounds of minute, hour, day of month, month, day of week (robfig: Sunday is 0 only). */
const BOUNDS: readonly [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];

/** robfig's getRange checks on one comma-separated element; numeric parts only (names are left to cron-parser). */
function rangeError(expr: string, [min, max]: [number, number]): string | undefined {
  const [range = '', step] = expr.split('/');
  if (step !== undefined && /^\d+$/.test(step) && Number(step) === 0) return `step of range should be a positive number: ${expr}`;
  if (range === '*' || range === '?') return undefined;
  const [a = '', b] = range.split('-');
  if (!/^\d+$/.test(a) || (b !== undefined && !/^\d+$/.test(b))) return undefined;
  const start = Number(a);
  const end = b === undefined ? start : Number(b);
  if (start < min) return `beginning of range (${start}) below minimum (${min}): ${expr}`;
  if (end > max) return `end of range (${end}) above maximum (${max}): ${expr}`;
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  return undefined;
}

/** Parses a schedule read in `timeZone` (IANA; UTC when unset). Throws an Error with robfig/cron's message. */
export function parseCronSchedule(spec: string, timeZone?: string): CronSchedule {
  if (spec.length === 0) throw new Error('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) throw new Error('provided bad location in spec string');
  if (spec.startsWith('@')) {
    if (spec.startsWith('@every ')) {
      const ms = parseGoDuration(spec.slice('@every '.length));
      if (ms === undefined) throw new Error(`failed to parse duration ${spec}: time: invalid duration "${spec.slice(7)}"`);
      // robfig: at least one second, whole seconds, counted from the previous activation.
      const delay = Math.max(1000, Math.floor(ms / 1000) * 1000);
      const next = (after: Date) => new Date(Math.floor(after.getTime() / 1000) * 1000 + delay);
      return { next, between: (after, until, cap) => countBetween(next, after, until, cap) };
    }
    const expanded = DESCRIPTORS[spec];
    if (expanded === undefined) throw new Error(`unrecognized descriptor: ${spec}`);
    return compile(expanded, timeZone);
  }
  const fields = spec.trim().split(/\s+/);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  for (const [i, f] of fields.entries()) {
    if (!FIELD_RE.test(f)) throw new Error(`failed to parse int from ${f}: strconv.Atoi: parsing ${JSON.stringify(f)}: invalid syntax`);
    for (const part of f.split(',')) {
      const err = rangeError(part, BOUNDS[i] ?? [0, 59]);
      if (err) throw new Error(err);
    }
  }
  return compile(fields.join(' '), timeZone);
}

function compile(expr: string, timeZone: string | undefined): CronSchedule {
  const tz = timeZone ?? 'UTC';
  // Validates now, so a bad field fails at parse time rather than at the first next().
  CronExpressionParser.parse(expr, { tz, currentDate: new Date(0) });
  // cron-parser's next() is strictly after currentDate at second precision; robfig's is after the second.
  const from = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);
  return {
    next: (after) => CronExpressionParser.parse(expr, { tz, currentDate: from(after) }).next().toDate(),
    between(after, until, cap) {
      const it = CronExpressionParser.parse(expr, { tz, currentDate: from(after), endDate: until });
      let count = 0;
      let last: Date | undefined;
      while (count < cap && it.hasNext()) {
        last = it.next().toDate();
        count++;
      }
      // Past the cap: the most recent time is the one just before `until`.
      if (count === cap && it.hasNext()) last = CronExpressionParser.parse(expr, { tz, currentDate: new Date(until.getTime() + 1000) }).prev().toDate();
      return last ? { count, last } : { count };
    },
  };
}

/** Go's time.LoadLocation check for an IANA name: an error message, or undefined when the zone exists. */
export function timeZoneError(tz: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return undefined;
  } catch {
    return `unknown time zone ${tz}`;
  }
}
