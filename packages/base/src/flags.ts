// Command-line flags with pflag's syntax (--name=value, --name value, --bool, --bool=false) and Kubernetes'
// behaviour: an unknown or malformed flag prints the error and the usage, and exits with code 2.
import { parseDuration, formatDuration } from './duration.ts';

type FlagType = 'string' | 'bool' | 'int' | 'float' | 'duration' | 'stringArray';

interface FlagSpecBase<T extends FlagType, V> {
  type: T;
  default: V;
  usage: string;
}

export type FlagSpec =
  | FlagSpecBase<'string', string>
  | FlagSpecBase<'bool', boolean>
  | FlagSpecBase<'int', number>
  | FlagSpecBase<'float', number>
  | FlagSpecBase<'duration', number>
  | FlagSpecBase<'stringArray', readonly string[]>;

export type FlagSpecs = Record<string, FlagSpec>;

/** Parsed values: durations in milliseconds, stringArray collects repeats and comma lists. */
type ValueOf<F extends FlagSpec> = F['type'] extends 'bool'
  ? boolean
  : F['type'] extends 'stringArray'
    ? string[]
    : F['type'] extends 'string'
      ? string
      : number;

export type FlagValues<S extends FlagSpecs> = { [K in keyof S]: ValueOf<S[K]> } & { _: string[] };

export class FlagError extends Error {}

export function parseFlags<S extends FlagSpecs>(specs: S, argv: string[]): FlagValues<S> {
  const out: Record<string, unknown> = { _: [] as string[] };
  for (const [name, spec] of Object.entries(specs)) out[name] = Array.isArray(spec.default) ? [...spec.default] : spec.default;
  const seenArrays = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      (out._ as string[]).push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      (out._ as string[]).push(arg);
      continue;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    const spec = specs[name];
    if (!spec) throw new FlagError(`unknown flag: --${name}`);
    let value: string | undefined = eq >= 0 ? body.slice(eq + 1) : undefined;
    if (spec.type === 'bool') {
      if (value === undefined) value = 'true';
      if (value !== 'true' && value !== 'false')
        throw new FlagError(`invalid argument "${value}" for "--${name}" flag: strconv.ParseBool: parsing "${value}": invalid syntax`);
      out[name] = value === 'true';
      continue;
    }
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw new FlagError(`flag needs an argument: --${name}`);
    }
    out[name] = convert(name, spec, value, out[name], seenArrays);
  }
  return out as FlagValues<S>;
}

function convert(name: string, spec: FlagSpec, value: string, prev: unknown, seenArrays: Set<string>): unknown {
  const bad = (why: string) => new FlagError(`invalid argument "${value}" for "--${name}" flag: ${why}`);
  switch (spec.type) {
    case 'string':
      return value;
    case 'int': {
      if (!/^[-+]?\d+$/.test(value)) throw bad(`strconv.ParseInt: parsing "${value}": invalid syntax`);
      return Number(value);
    }
    case 'float': {
      const n = Number(value);
      if (value.trim() === '' || Number.isNaN(n)) throw bad(`strconv.ParseFloat: parsing "${value}": invalid syntax`);
      return n;
    }
    case 'duration':
      try {
        return parseDuration(value);
      } catch (e) {
        throw bad((e as Error).message);
      }
    case 'stringArray': {
      // The first occurrence replaces the default; later ones append (pflag's StringSlice).
      const base = seenArrays.has(name) ? (prev as string[]) : [];
      seenArrays.add(name);
      return [...base, ...value.split(',').filter((v) => v !== '')];
    }
    case 'bool':
      return value === 'true';
  }
}

export function usage(program: string, specs: FlagSpecs): string {
  const lines = [`Usage:\n  ${program} [flags]\n\nFlags:`];
  for (const [name, spec] of Object.entries(specs).sort(([a], [b]) => a.localeCompare(b))) {
    const type = spec.type === 'bool' ? '' : ` ${spec.type === 'stringArray' ? 'strings' : spec.type}`;
    const def = formatDefault(spec);
    lines.push(`      --${name}${type}\n            ${spec.usage}${def}`);
  }
  return lines.join('\n') + '\n';
}

function formatDefault(spec: FlagSpec): string {
  switch (spec.type) {
    case 'bool':
      return spec.default ? ' (default true)' : '';
    case 'duration':
      return ` (default ${formatDuration(spec.default)})`;
    case 'stringArray':
      return spec.default.length ? ` (default [${spec.default.join(',')}])` : '';
    case 'string':
      return spec.default ? ` (default "${spec.default}")` : '';
    default:
      return ` (default ${spec.default})`;
  }
}

/** Parses process.argv for a binary; prints errors/usage and exits 2 on bad flags, 0 on --help. */
export function parseCommandLine<S extends FlagSpecs>(program: string, specs: S, argv = process.argv.slice(2)): FlagValues<S> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage(program, specs));
    process.exit(0);
  }
  try {
    return parseFlags(specs, argv);
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`Error: ${e.message}\n${usage(program, specs)}`);
      process.exit(2);
    }
    throw e;
  }
}
