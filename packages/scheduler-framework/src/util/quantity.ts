// Resource quantities as the scheduler counts them (cpu in millicores, the rest in whole units, rounded up
// like resource.Quantity's MilliValue()/Value()), using @kemu/api's shared parser so the scheduler, the
// kubelet and validation agree. Results are memoised: the same few strings ("100m", "1Gi") recur across
// thousands of pods and nodes.
import type { Quantity } from '@kemu/api';
import { intValue as apiIntValue, milliValue as apiMilliValue, tryParseQuantity } from '@kemu/api';

const milliCache = new Map<string, number>();
const intCache = new Map<string, number>();
const MAX_CACHE = 10_000;

function memo(cache: Map<string, number>, q: Quantity, f: (q: Quantity) => number): number {
  if (typeof q === 'number') return tryParseQuantity(q) === undefined ? 0 : f(q);
  const hit = cache.get(q);
  if (hit !== undefined) return hit;
  // Malformed quantities never get past validation; count them as 0 rather than crash a cycle.
  const v = tryParseQuantity(q) === undefined ? 0 : f(q);
  if (cache.size < MAX_CACHE) cache.set(q, v);
  return v;
}

/** Millicores (MilliValue, rounded up). */
export function milliValue(q: Quantity | undefined): number {
  return q === undefined ? 0 : memo(milliCache, q, apiMilliValue);
}

/** Whole units (Value, rounded up). */
export function intValue(q: Quantity | undefined): number {
  return q === undefined ? 0 : memo(intCache, q, apiIntValue);
}
