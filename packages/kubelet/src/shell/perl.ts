// The `perl` the emulated shell knows: enough for kubernetes.io's pi Job, `perl -Mbignum=bpi -wle 'print
// bpi(2000)'`, which prints π to that many significant digits (computed here with Machin's formula on
// BigInt), and `print` of quoted strings. Anything else runs and ends quietly with 0.
import type { Result } from './builtins.ts';

/** arctan(1/x) scaled by `unit` (a power of ten), by its alternating series. */
function arctanInv(x: bigint, unit: bigint): bigint {
  let term = unit / x;
  const x2 = x * x;
  let sum = term;
  for (let n = 3n, sign = -1n; term !== 0n; n += 2n, sign = -sign) {
    term /= x2;
    sum += (sign * term) / n;
  }
  return sum;
}

/** π to `digits` significant digits, rounded as Math::BigFloat rounds (half up): "3.14159…". */
export function piDigits(digits: number): string {
  if (digits < 1) return '3';
  const guard = 10;
  const unit = 10n ** BigInt(digits - 1 + guard);
  // Machin: π/4 = 4·arctan(1/5) − arctan(1/239).
  const scaled = 4n * (4n * arctanInv(5n, unit) - arctanInv(239n, unit));
  const rounded = (scaled + 5n * 10n ** BigInt(guard - 1)) / 10n ** BigInt(guard);
  const s = rounded.toString();
  return s.length > 1 ? `${s[0]}.${s.slice(1)}` : s;
}

const MAX_PI_DIGITS = 100_000;

/** The value of one print argument: bpi(N) or a quoted string. */
function value(expr: string): string | undefined {
  const e = expr.trim();
  const bpi = /^bpi\(\s*(\d+)\s*\)$/.exec(e);
  if (bpi) return piDigits(Math.min(Number(bpi[1]), MAX_PI_DIGITS));
  const dq = /^"((?:[^"\\]|\\.)*)"$/.exec(e);
  if (dq) return (dq[1] ?? '').replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\(.)/g, '$1');
  const sq = /^'((?:[^'\\]|\\.)*)'$/.exec(e);
  if (sq) return (sq[1] ?? '').replace(/\\(['\\])/g, '$1');
  if (/^-?\d+(\.\d+)?$/.test(e)) return e;
  return undefined;
}

export function perl(args: readonly string[]): Result {
  let newline = false;
  const scripts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (!a.startsWith('-') || a === '-') break;
    if (a.startsWith('-M') || a.startsWith('-m') || a.startsWith('-I')) continue;
    const flags = a.slice(1);
    if (flags.includes('l')) newline = true;
    const e = flags.indexOf('e');
    if (e >= 0) {
      // -e takes the rest of the cluster, or the next argument, as a line of the script.
      const rest = flags.slice(e + 1);
      scripts.push(rest || (args[++i] ?? ''));
    }
  }
  let out = '';
  for (const script of scripts) {
    for (const stmt of script.split(';')) {
      const m = /^\s*print\s*(.*?)\s*$/s.exec(stmt);
      if (!m) continue;
      const parts = (m[1] ?? '').split(/\s*,\s*/).filter((p) => p !== '');
      const vals = parts.map(value);
      if (vals.some((v) => v === undefined)) continue;
      out += vals.join('') + (newline ? '\n' : '');
    }
  }
  return { out, status: 0 };
}
