// `date` as busybox prints it, in UTC (a container's default zone): "Thu Dec  3 16:00:00 UTC 2026", and
// `date +FORMAT` with the strftime conversions learners use.

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const pad = (n: number, w = 2, c = '0') => String(n).padStart(w, c);

export const BUSYBOX_DATE_FORMAT = '%a %b %e %H:%M:%S %Z %Y';

export function strftime(format: string, ms: number): string {
  const d = new Date(ms);
  const conv: Record<string, () => string> = {
    a: () => (DAYS[d.getUTCDay()] ?? '').slice(0, 3),
    A: () => DAYS[d.getUTCDay()] ?? '',
    b: () => (MONTHS[d.getUTCMonth()] ?? '').slice(0, 3),
    h: () => (MONTHS[d.getUTCMonth()] ?? '').slice(0, 3),
    B: () => MONTHS[d.getUTCMonth()] ?? '',
    d: () => pad(d.getUTCDate()),
    e: () => pad(d.getUTCDate(), 2, ' '),
    H: () => pad(d.getUTCHours()),
    I: () => pad(((d.getUTCHours() + 11) % 12) + 1),
    p: () => (d.getUTCHours() < 12 ? 'AM' : 'PM'),
    M: () => pad(d.getUTCMinutes()),
    S: () => pad(d.getUTCSeconds()),
    N: () => pad(d.getUTCMilliseconds(), 3) + '000000',
    m: () => pad(d.getUTCMonth() + 1),
    y: () => pad(d.getUTCFullYear() % 100),
    Y: () => String(d.getUTCFullYear()),
    j: () => pad(Math.floor((ms - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1, 3),
    s: () => String(Math.floor(ms / 1000)),
    u: () => String(d.getUTCDay() || 7),
    w: () => String(d.getUTCDay()),
    Z: () => 'UTC',
    z: () => '+0000',
    T: () => strftime('%H:%M:%S', ms),
    R: () => strftime('%H:%M', ms),
    D: () => strftime('%m/%d/%y', ms),
    F: () => strftime('%Y-%m-%d', ms),
    c: () => strftime('%a %b %e %H:%M:%S %Y', ms),
    n: () => '\n',
    t: () => '\t',
    '%': () => '%',
  };
  return format.replace(/%(.)/g, (all, c: string) => conv[c]?.() ?? all);
}

/** What `date [-u] [+FORMAT]` prints (a trailing newline included). */
export function dateCommand(args: readonly string[], ms: number): { out: string; err: string; status: number } {
  let format = BUSYBOX_DATE_FORMAT;
  for (const a of args) {
    if (a === '-u' || a === '--utc') continue;
    if (a === '-R') format = '%a, %d %b %Y %H:%M:%S %z';
    else if (a === '-I' || a === '--iso-8601') format = '%Y-%m-%d';
    else if (a.startsWith('-I')) format = '%Y-%m-%dT%H:%M:%S%z';
    else if (a.startsWith('+')) format = a.slice(1);
    else return { out: '', err: `date: invalid date '${a}'\n`, status: 1 };
  }
  return { out: strftime(format, ms) + '\n', err: '', status: 0 };
}
