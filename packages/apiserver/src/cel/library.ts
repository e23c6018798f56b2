// Kubernetes' CEL extension libraries (k8s.io/apiserver/pkg/cel/library and cel-go's ext) that kemu's
// expressions use: lists (isSorted, sum, min, max, indexOf, lastIndexOf), strings (charAt, replace, reverse…),
// regex (find, findAll), and quantity(). The base library already has lowerAscii, upperAscii, split, join,
// trim, matches, size and has().
import type { Environment } from '@marcbachmann/cel-js';
import { parseQuantity, tryParseQuantity } from '@kemu/api';

const cmp = (a: unknown, b: unknown): number => {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new Error('no such overload');
};

const toArr = (l: unknown): unknown[] => (Array.isArray(l) ? (l as unknown[]) : []);
const minMax = (name: string, sign: number) => (l: unknown): unknown => {
  const a = toArr(l);
  if (a.length === 0) throw new Error(`${name}(list) argument must not be empty`);
  let best = a[0];
  for (const x of a.slice(1)) if (cmp(x, best) * sign > 0) best = x;
  return best;
};

/** A resource.Quantity as the CEL quantity library sees it. */
export class Quantity {
  constructor(
    readonly text: string,
    readonly value: number,
  ) {}
}

const qty = (s: string): Quantity => new Quantity(s, parseQuantity(s));

export function registerKubernetesLibrary(env: Environment): Environment {
  return env
    .registerFunction('list.isSorted(): bool', (l: unknown) => toArr(l).every((x, i, a) => i === 0 || cmp(a[i - 1], x) <= 0))
    .registerFunction('list.sum(): dyn', (l: unknown) => {
      const a = toArr(l);
      if (a.length === 0) return 0n;
      return a.reduce((s: unknown, x) => (typeof s === 'bigint' && typeof x === 'bigint' ? s + x : Number(s) + Number(x)));
    })
    .registerFunction('list.min(): dyn', minMax('min', -1))
    .registerFunction('list.max(): dyn', minMax('max', 1))
    .registerFunction('list.indexOf(dyn): int', (l: unknown, v: unknown) => BigInt(toArr(l).findIndex((x) => x === v)))
    .registerFunction('list.lastIndexOf(dyn): int', (l: unknown, v: unknown) => BigInt(toArr(l).findLastIndex((x) => x === v)))
    .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
      const cps = [...s];
      if (i < 0n || i > BigInt(cps.length)) throw new Error(`index out of range: ${i}`);
      return cps[Number(i)] ?? '';
    })
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b))
    .registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
      if (n < 0n) return s.split(a).join(b);
      const parts = s.split(a);
      const k = Math.min(Number(n), parts.length - 1);
      return parts.slice(0, k + 1).join(b) + (k < parts.length - 1 ? a + parts.slice(k + 1).join(a) : '');
    })
    .registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''))
    .registerFunction('string.find(string): string', (s: string, re: string) => new RegExp(re, 'u').exec(s)?.[0] ?? '')
    .registerFunction('string.findAll(string): list<string>', (s: string, re: string) => [...s.matchAll(new RegExp(re, 'gu'))].map((m) => m[0]))
    .registerType('Quantity', { ctor: Quantity, fields: {} })
    .registerFunction('quantity(string): Quantity', qty)
    .registerFunction('isQuantity(string): bool', (s: string) => tryParseQuantity(s) !== undefined)
    .registerFunction('Quantity.isInteger(): bool', (q: Quantity) => Number.isInteger(q.value))
    .registerFunction('Quantity.asInteger(): int', (q: Quantity) => {
      if (!Number.isInteger(q.value)) throw new Error('cannot convert value to integer');
      return BigInt(q.value);
    })
    .registerFunction('Quantity.asApproximateFloat(): double', (q: Quantity) => q.value)
    .registerFunction('Quantity.sign(): int', (q: Quantity) => BigInt(Math.sign(q.value)))
    .registerFunction('Quantity.compareTo(Quantity): int', (a: Quantity, b: Quantity) => BigInt(Math.sign(a.value - b.value)))
    .registerFunction('Quantity.isGreaterThan(Quantity): bool', (a: Quantity, b: Quantity) => a.value > b.value)
    .registerFunction('Quantity.isLessThan(Quantity): bool', (a: Quantity, b: Quantity) => a.value < b.value)
    .registerFunction('Quantity.add(Quantity): Quantity', (a: Quantity, b: Quantity) => new Quantity(String(a.value + b.value), a.value + b.value))
    .registerFunction('Quantity.sub(Quantity): Quantity', (a: Quantity, b: Quantity) => new Quantity(String(a.value - b.value), a.value - b.value));
}
