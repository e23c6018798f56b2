// The bridge between JSON objects and CEL values. Inputs are wrapped lazily in Proxies that turn JSON
// integers into CEL ints (BigInt) and charge one unit of cost per field or element read, so every loop a
// comprehension makes over input data is metered; results are turned back into JSON (BigInt → number).
export class CostExceededError extends Error {
  constructor() {
    // cel-go's interpreter text when the actual cost passes the limit.
    super('operation cancelled: actual cost limit exceeded');
  }
}

/** The budget of one evaluation: units of cost and a wall-clock deadline (both bound runaway expressions). */
export class CostMeter {
  cost = 0;
  exceeded = false;
  constructor(
    readonly limit: number,
    private readonly deadline: number,
  ) {}
  charge(n = 1): void {
    this.cost += n;
    if (this.exceeded || this.cost > this.limit || ((this.cost & 0x3ff) === 0 && performance.now() > this.deadline)) {
      this.exceeded = true;
      throw new CostExceededError();
    }
  }
}

const TARGET = Symbol('cel.target');

/** A JSON value as CEL sees it: integers as BigInt, objects and arrays metered through a Proxy. */
export function toCel(v: unknown, meter: CostMeter): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v !== 'object' || v === null || v instanceof Uint8Array || v instanceof Date) return v;
  return new Proxy(v, {
    get(t, k, r) {
      if (k === TARGET) return t;
      const x: unknown = Reflect.get(t, k, r);
      if (typeof k !== 'string') return x;
      meter.charge();
      return typeof x === 'function' ? x : toCel(x, meter);
    },
    ownKeys(t) {
      const keys = Reflect.ownKeys(t);
      meter.charge(keys.length);
      return keys;
    },
  });
}

/** A CEL result as JSON: BigInt → number, Map → object, bytes → base64, timestamp → RFC 3339. */
export function fromCel(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'object' && v !== null) {
    const t = (v as { [TARGET]?: unknown })[TARGET];
    if (t !== undefined) return fromCel(t);
  }
  if (Array.isArray(v)) return v.map(fromCel);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), fromCel(x)]));
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object' && v !== null) {
    if (v.constructor !== Object && 'value' in v) return fromCel((v as { value: unknown }).value);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromCel(x)]));
  }
  return v;
}
