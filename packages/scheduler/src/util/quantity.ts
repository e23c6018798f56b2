// Resource quantities as the scheduler counts them: cpu in millicores, everything else in whole units, both
// rounded up as resource.Quantity's MilliValue()/Value() do. Parsed strings are memoised: the same few
// request strings ("100m", "1Gi") recur across thousands of pods.
import type { Quantity } from '@kemu/api';

const SUFFIX: Record<string, number> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};
const RE = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|([a-zA-Z]*))$/;
const cache = new Map<string, number>();

/** The quantity in base units; NaN when malformed (callers treat NaN as 0 after validation upstream). */
export function quantityValue(q: Quantity | undefined): number {
  if (q === undefined) return 0;
  if (typeof q === 'number') return Number.isFinite(q) ? q : NaN;
  const hit = cache.get(q);
  if (hit !== undefined) return hit;
  const m = RE.exec(q.trim());
  let v = NaN;
  if (m && m[1] !== undefined) {
    const base = Number(m[1]);
    if (m[2] !== undefined) v = base * 10 ** Number(m[2].slice(1));
    else {
      const mult = SUFFIX[m[3] ?? ''];
      if (mult !== undefined) v = base * mult;
    }
  }
  if (cache.size < 10_000) cache.set(q, v);
  return v;
}

/** Millicores (MilliValue, rounded up). */
export function milliValue(q: Quantity | undefined): number {
  const v = quantityValue(q);
  if (!Number.isFinite(v)) return 0;
  return Math.ceil(Math.round(v * 1e9) / 1e6);
}

/** Whole units (Value, rounded up). */
export function intValue(q: Quantity | undefined): number {
  const v = quantityValue(q);
  if (!Number.isFinite(v)) return 0;
  return Math.ceil(Math.round(v * 1e6) / 1e6);
}

export function isValidQuantity(q: unknown): boolean {
  return (typeof q === 'string' || typeof q === 'number') && Number.isFinite(quantityValue(q));
}
