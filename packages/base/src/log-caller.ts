// The `file:line` of the code that called the logger, for klog's header and JSON's "caller".
//
// klog gets it from runtime.Caller; here it is a V8 call-site capture (structured frames, no stack string)
// mapped through the source map tsx registers for the .ts file, so the line is the one in the source.
// A capture costs several microseconds, more than formatting the line, so callers are cached by message
// template (`callerFor`): kemu's messages are constants or come from a few templates, each written at one
// call site, so only a message's first line pays for the capture. The price: two call sites logging the
// very same message both show the first one's file:line.
import { findSourceMap } from 'node:module';
import path from 'node:path';

export interface Caller {
  /** `file.ts:123` (klog's header). */
  file: string;
  /** `dir/file.ts:123` (zap's short caller in JSON). */
  caller: string;
}

const UNKNOWN: Caller = { file: '???:1', caller: '???:1' };
const cache = new Map<string, Caller>();
const MAX_CACHED = 10_000;

function structuredFrames(_e: Error, frames: NodeJS.CallSite[]): NodeJS.CallSite[] {
  return frames;
}

const byMessage = new Map<string, Caller>();
const MAX_MESSAGES = 5_000;

/** callerOf, cached by the message's template (see above); the cache starts over past MAX_MESSAGES. */
export function callerFor(message: string, fn: (...args: never[]) => unknown): Caller {
  if (message === '') return callerOf(fn); // no text to tell call sites apart
  let c = byMessage.get(message);
  if (c) return c;
  c = callerOf(fn);
  if (byMessage.size >= MAX_MESSAGES) byMessage.clear();
  byMessage.set(message, c);
  return c;
}

// pino's own frames between the hook and the code that logged: its level method, and for fatal a wrapper.
const PINO_DIR = `${path.sep}node_modules${path.sep}pino${path.sep}`;
const MAX_FRAMES = 6;

/** The first frame above `fn` (the function the logged code called, directly or through pino) outside pino. */
export function callerOf(fn: (...args: never[]) => unknown): Caller {
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  const holder: { stack?: unknown } = {};
  try {
    Error.prepareStackTrace = structuredFrames;
    Error.stackTraceLimit = MAX_FRAMES;
    Error.captureStackTrace(holder, fn);
    const frames = holder.stack;
    if (!Array.isArray(frames)) return UNKNOWN;
    for (const frame of frames as NodeJS.CallSite[]) {
      const file = frame.getFileName() ?? '';
      if (!file.includes(PINO_DIR)) return resolve(frame);
    }
    return UNKNOWN;
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
}

function resolve(frame: NodeJS.CallSite): Caller {
  const file = frame.getFileName() ?? '';
  const line = frame.getLineNumber() ?? 0;
  const col = frame.getColumnNumber() ?? 0;
  const key = `${file}:${line}:${col}`;
  let c = cache.get(key);
  if (c) return c;
  let source = file;
  let sourceLine = line;
  try {
    // findEntry returns {} where no mapping exists; the fields are checked one by one.
    const entry: Partial<Record<'originalSource' | 'originalLine', unknown>> = (file ? findSourceMap(file)?.findEntry(line - 1, col - 1) : undefined) ?? {};
    if (typeof entry.originalSource === 'string' && entry.originalSource && typeof entry.originalLine === 'number') {
      source = entry.originalSource;
      sourceLine = entry.originalLine + 1;
    }
  } catch {
    // no source map: the generated position is the best there is
  }
  const p = source.startsWith('file://') ? new URL(source).pathname : source;
  const base = path.basename(p) || '???';
  const dir = path.basename(path.dirname(p));
  c = { file: `${base}:${sourceLine}`, caller: dir && dir !== '.' ? `${dir}/${base}:${sourceLine}` : `${base}:${sourceLine}` };
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, c);
  return c;
}
