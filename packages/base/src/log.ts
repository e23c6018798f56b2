// Logs as Kubernetes components write them, on stderr: klog's text lines by default, component-base's JSON
// lines with --logging-format=json; the level chosen by --v (0-1 info, 2-3 debug: per-request lines, 4+ trace).
//
// pino stays the logger (its API, child loggers, and a disabled level being a no-op, so request logging
// at --v=0 costs nothing); its logMethod hook formats each enabled line itself instead of pino's JSON and
// writes it to pino's buffered stderr destination, so no line is serialised twice or parsed back.
import fs from 'node:fs';
import { format as utilFormat } from 'node:util';
import { pino, type Logger } from 'pino';
import { callerFor, callerOf, type Caller } from './log-caller.ts';
import { formatJson, formatText, pidColumn, type LogRecord, type Severity } from './log-format.ts';
import type { FlagSpecs } from './flags.ts';

export type { Logger };

export const LOGGING_FORMATS = ['text', 'json'] as const;
export type LoggingFormat = (typeof LOGGING_FORMATS)[number];

/** The flag every component takes, with Kubernetes' name, default and wording. */
export const LOGGING_FORMAT_FLAG = {
  'logging-format': { type: 'string', default: 'text', usage: 'Sets the log format. Permitted formats: "json", "text".' },
} as const satisfies FlagSpecs;

/** Kubernetes' validation message for an unknown --logging-format, or undefined when the value is valid. */
export function loggingFormatError(value: string): string | undefined {
  return (LOGGING_FORMATS as readonly string[]).includes(value) ? undefined : `format: Invalid value: "${value}": Unsupported log format`;
}

/** The validated --logging-format of a binary: an unknown one prints Kubernetes' error and exits 1. */
export function loggingFormatFlag(value: string): LoggingFormat {
  const err = loggingFormatError(value);
  if (err) {
    process.stderr.write(`Error: ${err}\n`);
    process.exit(1);
  }
  return value as LoggingFormat;
}

export function levelForVerbosity(v: number): 'info' | 'debug' | 'trace' {
  if (v >= 4) return 'trace';
  if (v >= 2) return 'debug';
  return 'info';
}

export interface LogDestination {
  write(line: string): unknown;
}

export interface LoggerOptions {
  /** text (klog) by default, as Kubernetes' components. */
  format?: LoggingFormat;
  /** Where lines go; stderr (buffered, flushed on exit) by default. Tests pass a collector. */
  destination?: LogDestination;
}

interface Sink {
  format: LoggingFormat;
  pid: string;
  write(line: string): void;
  /** Writes a line now, after whatever is buffered (for a process about to exit). */
  writeSync(line: string): void;
  /** Writes out what is buffered (pino calls it after a fatal line). */
  flush(): void;
}

const SINK: unique symbol = Symbol('kemu.log.sink');
type SinkCarrier = { [SINK]?: Sink };

export function createLogger(component: string, v = 0, extra: Record<string, unknown> = {}, opts: LoggerOptions = {}): Logger {
  const sink = makeSink(opts);
  // The component name is not printed: Kubernetes' lines do not carry it (journald/docker know the unit).
  void component;
  const logMethod = function (this: Logger, args: unknown[], _method: unknown, level: number): void {
    sink.write(render(sink, this, args, level, callerFor(template(args), logMethod)));
  };
  // pino's own stream never receives a line (the hook writes them); it only passes on pino's flush after
  // a fatal line, and keeps pino from opening stdout.
  const stream = { write: () => undefined, flushSync: () => sink.flush() };
  const logger = pino({ level: levelForVerbosity(v), base: { ...extra }, hooks: { logMethod } }, stream);
  (logger as unknown as SinkCarrier)[SINK] = sink; // children inherit it through the prototype chain
  return logger;
}

/** A logger that drops everything (tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/**
 * Writes one line synchronously, after flushing what the logger has buffered: for a process that exits right
 * after (a lost leader election). A logger without a sink (silentLogger) writes klog text to stderr.
 */
export function logSync(logger: Logger, level: 'error' | 'fatal' | 'warn' | 'info', fields: Record<string, unknown>, msg: string): void {
  const sink = (logger as unknown as SinkCarrier)[SINK] ?? stderrSink('text');
  sink.writeSync(render(sink, logger, [fields, msg], pino.levels.values[level] ?? 30, callerOf(logSync)));
}

function makeSink(opts: LoggerOptions): Sink {
  const format = opts.format ?? 'text';
  const dest = opts.destination;
  if (dest) return { format, pid: pidColumn(process.pid), write: (l) => void dest.write(l), writeSync: (l) => void dest.write(l), flush: () => undefined };
  return stderrSink(format);
}

function stderrSink(format: LoggingFormat): Sink {
  // pino's destination: buffered, and flushed synchronously when the process exits.
  let stream: ReturnType<typeof pino.destination> | undefined;
  const out = () => (stream ??= pino.destination({ fd: 2, sync: false }));
  const flush = () => {
    try {
      stream?.flushSync();
    } catch {
      // nothing buffered, or the stream not open yet
    }
  };
  return {
    format,
    pid: pidColumn(process.pid),
    write: (l) => void out().write(l),
    writeSync: (l) => {
      flush();
      fs.writeSync(2, l);
    },
    flush,
  };
}

// Bound values of child loggers, parsed once per distinct set (pino keeps them as a JSON fragment).
const bindingsCache = new Map<string, readonly (readonly [string, unknown])[]>();

function boundValues(logger: Logger): readonly (readonly [string, unknown])[] {
  const raw = (logger as unknown as Record<symbol, unknown>)[pino.symbols.chindingsSym];
  if (typeof raw !== 'string' || raw === '') return [];
  let kvs = bindingsCache.get(raw);
  if (!kvs) {
    try {
      kvs = Object.entries(JSON.parse(`{${raw.slice(1)}}`) as Record<string, unknown>);
    } catch {
      kvs = [];
    }
    if (bindingsCache.size > 1000) bindingsCache.clear();
    bindingsCache.set(raw, kvs);
  }
  return kvs;
}

function severityOf(level: number): Severity {
  if (level >= 60) return 'F';
  if (level >= 50) return 'E';
  if (level >= 40) return 'W';
  return 'I';
}

/** klog's V level of a pino level: info 0, debug 2, trace 4 (the --v that turns each on); none for errors. */
function verbosityOf(level: number): number | undefined {
  if (level >= 50) return undefined;
  if (level >= 30) return 0;
  if (level >= 20) return 2;
  return 4;
}

/** pino's call shapes: (fields, msg, ...args), (error, msg?), (msg, ...args). */
function render(sink: Sink, logger: Logger, args: unknown[], level: number, at: Caller): string {
  const a0 = args[0];
  let fields: Record<string, unknown> | undefined;
  let msg: string;
  if (typeof a0 === 'object' && a0 !== null) {
    fields = a0 instanceof Error ? { err: a0 } : (a0 as Record<string, unknown>);
    msg = args.length > 1 ? message(args[1], args, 2) : a0 instanceof Error ? a0.message : '';
  } else {
    msg = message(a0, args, 1);
  }
  const bound = boundValues(logger);
  let err: unknown;
  let kvs: readonly (readonly [string, unknown])[] = bound;
  if (fields) {
    const own: [string, unknown][] = [];
    for (const k in fields) {
      if (k === 'err') err = fields[k];
      else own.push([k, fields[k]]);
    }
    kvs = bound.length ? [...bound, ...own] : own;
  }
  const r: LogRecord = {
    severity: severityOf(level),
    v: verbosityOf(level),
    // Wall time, as klog writes it (a monotonic clock drifts from it after a clock step or a suspend); the
    // sub-millisecond digits come from the high-resolution clock.
    timeMs: Date.now() + (performance.now() % 1),
    file: at.file,
    caller: at.caller,
    msg,
    // A bare message is klog.Infof's shape; anything with values is klog.InfoS's.
    structured: fields !== undefined || bound.length > 0,
    err,
    kvs,
  };
  return sink.format === 'json' ? formatJson(r) : formatText(r, sink.pid);
}

/** The message as written at the call site, before interpolation: the key of the caller cache. */
function template(args: unknown[]): string {
  const a0 = args[0];
  const m = typeof a0 === 'object' && a0 !== null ? args[1] : a0;
  return typeof m === 'string' ? m : '';
}

function message(m: unknown, args: unknown[], from: number): string {
  const text = typeof m === 'string' ? m : m === undefined ? '' : String(m);
  return args.length > from ? utilFormat(text, ...args.slice(from)) : text;
}
