// resource.Quantity as numbers: "100m" → 0.1, "1Gi" → 1073741824, "1e3" → 1000. The scheduler, kubelet and
// validation share this one parser so they agree on what a request or a capacity means.
import type { Quantity } from './core.ts';

/** Kubernetes' own wording for a malformed quantity (resource.ErrFormatWrong). */
export const QUANTITY_FORMAT_MESSAGE =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const BINARY: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

const QUANTITY_RE = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))([a-zA-Z]*|[eE][+-]?[0-9]+)$/;

export class QuantityError extends Error {
  constructor(readonly input: string) {
    super(QUANTITY_FORMAT_MESSAGE);
    this.name = 'QuantityError';
  }
}

/** The value in base units (cores, bytes, count). Throws QuantityError for malformed input. */
export function parseQuantity(q: Quantity): number {
  if (typeof q === 'number') {
    if (!Number.isFinite(q)) throw new QuantityError(String(q));
    return q;
  }
  const s = q.trim();
  const m = QUANTITY_RE.exec(s);
  if (!m || m[1] === undefined || m[2] === undefined) throw new QuantityError(q);
  const num = Number(m[1]);
  const suffix = m[2];
  let mult: number | undefined;
  if (/^[eE][+-]?[0-9]+$/.test(suffix)) mult = 10 ** Number(suffix.slice(1));
  else mult = BINARY[suffix] ?? DECIMAL[suffix];
  if (mult === undefined || !Number.isFinite(num)) throw new QuantityError(q);
  return num * mult;
}

/** parseQuantity that returns undefined instead of throwing. */
export function tryParseQuantity(q: unknown): number | undefined {
  if (typeof q !== 'string' && typeof q !== 'number') return undefined;
  try {
    return parseQuantity(q);
  } catch {
    return undefined;
  }
}

/** Quantity.MilliValue(): the value × 1000, rounded up (as Kubernetes does for cpu). */
export function milliValue(q: Quantity): number {
  return Math.ceil(Math.round(parseQuantity(q) * 1e9) / 1e6);
}

/** CPU in millicores ("100m" → 100, "2" → 2000). */
export function cpuMillis(q: Quantity): number {
  return milliValue(q);
}

/** Quantity.Value(): rounded up to an integer (memory, pods, ephemeral-storage). */
export function intValue(q: Quantity): number {
  const v = parseQuantity(q);
  return Math.ceil(Math.round(v * 1e6) / 1e6);
}
