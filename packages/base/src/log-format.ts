// One log record rendered as Kubernetes components print it: klog's text header and key=value pairs
// (k8s.io/klog/v2, internal/serialize), or component-base's JSON (zap through zapr).
//
//   I1203 06:07:11.123456   12345 leaderelection.go:268] "successfully acquired lease" lease="kube-system/x"
//   {"ts":1764741631123.456,"caller":"leaderelection/leaderelection.go:268","msg":"…","v":0,"lease":"…"}
//
// Pure functions of the record, so they are tested without a process around them.

/** klog's severities; kemu's pino levels map onto them (trace/debug/info → I). */
export type Severity = 'I' | 'W' | 'E' | 'F';

export interface LogRecord {
  severity: Severity;
  /** klog's V level of an info line (0, 2 for debug, 4 for trace); absent for errors, as zapr leaves it out. */
  v: number | undefined;
  /** Milliseconds since the epoch, with a fraction (microseconds in the text header). */
  timeMs: number;
  /** `file.ts:123` for the text header; `dir/file.ts:123` for JSON's "caller" (zap's short caller). */
  file: string;
  caller: string;
  msg: string;
  /**
   * true for a structured call (klog.InfoS: the message is quoted and key/values follow); false for a bare
   * message (klog.Infof: printed as is in text, with a trailing newline in JSON's msg as klog adds one).
   */
  structured: boolean;
  /** The error of an error call, printed first in text (err="…") and last in JSON, as klog and zapr do. */
  err: unknown;
  /** Key/value pairs in order (bound values of child loggers first, then the call's own). */
  kvs: readonly (readonly [string, unknown])[];
}

// ---- text ------------------------------------------------------------------------------------------------

let headerSecond = -1;
let headerPrefix = '';

/** `I1203 06:07:11.123456   12345 file.ts:123] `: the date and time part is cached per second. */
export function textHeader(severity: Severity, timeMs: number, pid: string, file: string): string {
  const second = Math.floor(timeMs / 1000);
  if (second !== headerSecond) {
    // klog prints local time (time.Now() in the process's zone); containers and systemd units are usually UTC.
    const d = new Date(second * 1000);
    headerPrefix = `${two(d.getMonth() + 1)}${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.`;
    headerSecond = second;
  }
  const micros = Math.floor((timeMs - second * 1000) * 1000);
  return `${severity}${headerPrefix}${String(micros).padStart(6, '0')} ${pid} ${file}] `;
}

/** klog's thread id column: the pid right-aligned to 7. */
export function pidColumn(pid: number): string {
  return String(pid).padStart(7, ' ');
}

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

export function formatText(r: LogRecord, pid: string): string {
  let out = textHeader(r.severity, r.timeMs, pid, r.file);
  if (!r.structured) return `${out}${r.msg}\n`;
  out += goQuote(r.msg);
  if (r.err !== undefined) out += textPair('err', errorString(r.err));
  for (const [k, v] of r.kvs) if (v !== undefined) out += textPair(k, v);
  return `${out}\n`;
}

/** ` key=value` as klog's serialize.formatKV writes it. */
export function textPair(key: string, value: unknown): string {
  if (typeof value === 'string') return ` ${key}${stringValue(value, true)}`;
  if (value instanceof Error) return ` ${key}${stringValue(value.message, true)}`;
  return ` ${key}${stringValue(plainValue(value), false)}`;
}

/**
 * klog's writeStringValue: `="quoted"` (Go's strconv.Quote) or, for non-strings, the value as is; a value with
 * line breaks is written as `=<` then each line tab-indented, then ` >`, whatever its type.
 */
function stringValue(v: string, quote: boolean): string {
  if (!v.includes('\n')) return `=${quote ? goQuote(v) : v}`;
  const lines = v.split('\n');
  const endsWithBreak = lines[lines.length - 1] === '';
  if (endsWithBreak) lines.pop();
  return `=<\n${lines.map((l) => `\t${l}\n`).join('')} >`;
}

/** What Go's %+v prints for the values kemu logs; objects (structs and maps in Go) as JSON. */
function plainValue(v: unknown): string {
  if (v === null) return '<nil>';
  switch (typeof v) {
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(v);
    case 'object':
      if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) return `[${v.map((x) => (x === null ? '<nil>' : String(x))).join(' ')}]`;
      if (v instanceof Date) return v.toISOString();
      return safeJson(v);
    default:
      return String(v);
  }
}

function errorString(e: unknown): string {
  return e instanceof Error ? e.message : typeof e === 'string' ? e : plainValue(e);
}

// Anything outside printable ASCII, or a quote or backslash, takes the slow path.
const NEEDS_ESCAPE = /[^\x20-\x21\x23-\x5b\x5d-\x7e]/;
// Unicode characters Go's strconv.IsPrint rejects, beyond the C0/C1 controls: format characters, separators,
// non-ASCII spaces. (Unpaired surrogates, invalid UTF-8 to Go, are handled in goQuote.)
const NOT_PRINTABLE = /[\u00a0\u00ad\u0600-\u0605\u061c\u06dd\u070f\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ufeff\ufff9-\ufffb]/;

/** Go's strconv.Quote: a double-quoted string with Go escapes (\n, \t, \x01, \u00a0, …). */
export function goQuote(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c < 0x7f) out += ch;
    else if (c >= 0x80 && c < 0xa0) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else if (NOT_PRINTABLE.test(ch)) out += c > 0xffff ? `\\U${c.toString(16).padStart(8, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

// ---- JSON ------------------------------------------------------------------------------------------------

/** component-base's JSON line: ts (float milliseconds), caller, msg, v (info lines only), the pairs, err last. */
export function formatJson(r: LogRecord): string {
  // Built as a string: one JSON.stringify per value is cheaper than assembling an object and encoding it.
  let out = `{"ts":${r.timeMs},"caller":${jsonString(r.caller)},"msg":${jsonString(r.structured ? r.msg : `${r.msg}\n`)}`;
  if (r.v !== undefined) out += `,"v":${r.v}`;
  for (const [k, v] of r.kvs) {
    if (v === undefined || RESERVED.has(k)) continue;
    out += `,${jsonString(k)}:${jsonValue(v)}`;
  }
  if (r.err !== undefined) out += `,"err":${jsonValue(r.err)}`;
  return `${out}}\n`;
}

/** Keys of the line itself; a pair with one of these names would make a duplicate key. */
const RESERVED = new Set(['ts', 'caller', 'msg', 'v', 'err']);

function jsonValue(v: unknown): string {
  if (typeof v === 'string') return jsonString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (v instanceof Error) return jsonString(v.message);
  return safeJson(v);
}

// What JSON.stringify would escape: quotes, backslashes, controls, and surrogates (escaped when unpaired).
const JSON_ESCAPE = /["\\\x00-\x1f\ud800-\udfff]/;

/** JSON.stringify of a string, without its call for the common string that needs no escaping. */
function jsonString(s: string): string {
  return JSON_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    // BigInts and cycles: the slow path only for the rare value that needs it.
    try {
      return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? 'null';
    } catch {
      return '"<unserializable>"';
    }
  }
}
