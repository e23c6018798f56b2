// Bench helper: every benchmark's flags go through @kemu/base's pflag-style parser (--x v and --x=v,
// --help), under the program name `npm run bench -- <name>`. A bad flag, a value out of range or a stray
// argument prints the error and the usage and exits 2, as the kube binaries do for a bad flag.
import { parseCommandLine, usage, type FlagSpecs, type FlagValues } from '@kemu/base';

export function benchFlags<S extends FlagSpecs>(bench: string, specs: S, check?: (f: FlagValues<S>) => string | undefined): FlagValues<S> {
  const program = `npm run bench -- ${bench}`;
  const f = parseCommandLine(program, specs);
  const bad = f._.length > 0 ? `unknown command "${f._[0]}" for "${program}"` : check?.(f);
  if (bad !== undefined) {
    process.stderr.write(`Error: ${bad}\n${usage(program, specs)}`);
    process.exit(2);
  }
  return f;
}

/** pflag's message for a value a flag does not take. */
export const invalid = (name: string, value: unknown, why: string): string => `invalid argument "${String(value)}" for "--${name}" flag: ${why}`;

/** The first named numeric flag below min (or, with `exclusive`, not above it), as an error message. */
export function atLeast<F extends Record<string, unknown>>(f: F, min: number, names: (keyof F & string)[], exclusive = false): string | undefined {
  for (const n of names) {
    const v = f[n];
    if (typeof v === 'number' && (exclusive ? v <= min : v < min)) return invalid(n, v, `must be ${exclusive ? 'greater than' : 'at least'} ${min}`);
  }
  return undefined;
}

/** The first value of a string or list flag that is not one of `allowed`, as an error message. */
export function oneOf<F extends Record<string, unknown>>(f: F, name: keyof F & string, allowed: readonly string[]): string | undefined {
  const v = f[name];
  for (const x of Array.isArray(v) ? v : [v]) if (!allowed.includes(String(x))) return invalid(name, x, `must be one of ${allowed.join(', ')}`);
  return undefined;
}
