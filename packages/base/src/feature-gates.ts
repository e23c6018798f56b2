// --feature-gates as Kubernetes' component-base/featuregate reads it: `Name=bool` pairs (Go's ParseBool), a
// gate named twice keeps the last value. A binary states the gates it acts on with their 1.32 defaults; other
// well-formed names are accepted and do nothing (kemu does not list all of Kubernetes' gates).

export const FEATURE_GATES_FLAG = {
  'feature-gates': { type: 'stringArray', default: [], usage: 'A set of key=value pairs that describe feature gates for alpha/experimental features.' },
} as const;

const GO_BOOL: Readonly<Record<string, boolean>> = {
  '1': true, t: true, T: true, TRUE: true, true: true, True: true,
  '0': false, f: false, F: false, FALSE: false, false: false, False: false,
};

export class FeatureGateError extends Error {}

/** The gates set on the command line; throws FeatureGateError with pflag's whole message for a bad pair. */
export function parseFeatureGates(pairs: readonly string[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const fail = (why: string) => new FeatureGateError(`invalid argument "${pairs.join(',')}" for "--feature-gates" flag: ${why}`);
  for (const p of pairs) {
    const eq = p.indexOf('=');
    const key = (eq < 0 ? p : p.slice(0, eq)).trim();
    if (eq < 0) throw fail(`missing bool value for ${key}`);
    const v = p.slice(eq + 1).trim();
    const b = GO_BOOL[v];
    if (b === undefined) throw fail(`invalid value of ${key}=${v}, err: strconv.ParseBool: parsing "${v}": invalid syntax`);
    out.set(key, b);
  }
  return out;
}

/** pflag's message for bad --feature-gates values, or undefined. */
export function featureGatesError(pairs: readonly string[]): string | undefined {
  try {
    parseFeatureGates(pairs);
    return undefined;
  } catch (e) {
    if (e instanceof FeatureGateError) return e.message;
    throw e;
  }
}

/** A binary's gates: the defaults it knows, overridden by the flag. */
export class FeatureGates<G extends string> {
  private readonly set: Map<string, boolean>;
  constructor(
    private readonly defaults: Readonly<Record<G, boolean>>,
    pairs: readonly string[] = [],
  ) {
    this.set = parseFeatureGates(pairs);
  }
  enabled(gate: G): boolean {
    return this.set.get(gate) ?? this.defaults[gate];
  }
}
