// Go's time.Parse(time.RFC3339, s) error text, which metav1.Time's UnmarshalJSON returns for a string that is
// no RFC 3339 timestamp: `parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as
// "2006"`, `...: month out of range`, `...: extra text: "x"`.

const LAYOUT = '2006-01-02T15:04:05Z07:00';

/** One layout element: a literal, or a number of 1–2 (or exactly `digits`) digits with a range name. */
type Elem = { lit: string } | { std: string; digits: number; fixed: boolean; range?: [string, number, number] };

const ELEMS: readonly Elem[] = [
  { std: '2006', digits: 4, fixed: true },
  { lit: '-' },
  { std: '01', digits: 2, fixed: true, range: ['month', 1, 12] },
  { lit: '-' },
  { std: '02', digits: 2, fixed: true, range: ['day', 0, 31] },
  { lit: 'T' },
  { std: '15', digits: 2, fixed: false, range: ['hour', 0, 23] },
  { lit: ':' },
  { std: '04', digits: 2, fixed: true, range: ['minute', 0, 59] },
  { lit: ':' },
  { std: '05', digits: 2, fixed: true, range: ['second', 0, 59] },
];

const quote = (s: string) => JSON.stringify(s);
const cannot = (value: string, rest: string, elem: string) => `parsing time ${quote(value)} as ${quote(LAYOUT)}: cannot parse ${quote(rest)} as ${quote(elem)}`;
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** undefined when `value` parses as RFC 3339 the way Go's time.Parse does; otherwise Go's error text. */
export function rfc3339ParseError(value: string): string | undefined {
  let rest = value;
  const nums: Record<string, number> = {};
  for (const e of ELEMS) {
    if ('lit' in e) {
      if (!rest.startsWith(e.lit)) return cannot(value, rest, e.lit);
      rest = rest.slice(e.lit.length);
      continue;
    }
    let n = 0;
    while (n < e.digits && isDigit(rest[n])) n++;
    if (n === 0 || (e.fixed && n < e.digits)) return cannot(value, rest, e.std);
    const v = Number(rest.slice(0, n));
    if (e.range && (v < e.range[1] || v > e.range[2])) return `parsing time ${quote(value)}: ${e.range[0]} out of range`;
    nums[e.std] = v;
    rest = rest.slice(n);
  }
  // Fractional seconds are accepted after the seconds even though the layout has none.
  if (rest[0] === '.' && isDigit(rest[1])) {
    let n = 1;
    while (isDigit(rest[n])) n++;
    rest = rest.slice(n);
  }
  if (rest.startsWith('Z')) rest = rest.slice(1);
  else if (/^[+-]\d\d:\d\d/.test(rest)) rest = rest.slice(6);
  else return cannot(value, rest, 'Z07:00');
  if (rest !== '') return `parsing time ${quote(value)}: extra text: ${quote(rest)}`;
  const day = nums['02'] ?? 0;
  if (day < 1 || day > daysIn(nums['01'] ?? 1, nums['2006'] ?? 0)) return `parsing time ${quote(value)}: day out of range`;
  return undefined;
}
