// Go-style durations ("15s", "500ms", "1m30s", "1.5h") as used by Kubernetes flags and config files.

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or throws with a message naming the bad value. */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let pos = 0;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    sign = s.startsWith('-') ? -1 : 1;
    pos = 1;
  }
  let total = 0;
  let matched = false;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m || m[1] === undefined || m[2] === undefined) throw new Error(`time: invalid duration "${text}"`);
    total += Number(m[1]) * (UNITS[m[2]] ?? 0);
    pos = re.lastIndex;
    matched = true;
  }
  if (!matched) throw new Error(`time: invalid duration "${text}"`);
  return sign * total;
}

/** Formats milliseconds the way Go prints a time.Duration ("15s", "1m0s", "500ms"). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (Math.abs(ms) < 1000) return `${ms}ms`;
  const neg = ms < 0;
  let rest = Math.abs(ms) / 1000;
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  rest -= m * 60;
  const sec = Number(rest.toFixed(3)).toString();
  const out = h > 0 ? `${h}h${m}m${sec}s` : m > 0 ? `${m}m${sec}s` : `${sec}s`;
  return neg ? `-${out}` : out;
}
