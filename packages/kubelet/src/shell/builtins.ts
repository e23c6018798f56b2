// The emulated shell's text commands as pure functions: echo, printf, test/[, seq, cat, env. Each returns
// what it writes and its exit status; the interpreter (interpreter.ts) sends the text to its streams.
// Wording of errors follows busybox, the shell of the images learners use most.

export interface Result {
  out: string;
  err?: string;
  status: number;
}

const ok = (out = ''): Result => ({ out, status: 0 });

/** Backslash escapes of `echo -e` and printf (%b and the format): returns the text and whether \c stopped it. */
export function unescape(s: string, printf = false): { text: string; stop: boolean } {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch !== '\\' || i + 1 >= s.length) {
      out += ch;
      continue;
    }
    const n = s[++i] ?? '';
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', e: '\x1b', '\\': '\\' };
    if (n in simple) out += simple[n];
    else if (n === 'c') return { text: out, stop: true };
    else if (/[0-7]/.test(n) && (n === '0' || printf)) {
      // echo -e: \0nnn; printf: \nnn.
      const m = /^[0-7]{1,3}/.exec(s.slice(n === '0' && !printf ? i + 1 : i));
      const digits = m?.[0] ?? '';
      out += String.fromCharCode(parseInt(digits || '0', 8));
      i += digits.length - (n === '0' && !printf ? 0 : 1);
    } else out += '\\' + n;
  }
  return { text: out, stop: false };
}

export function echo(args: readonly string[]): Result {
  let newline = true;
  let escapes = false;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i] ?? '';
    if (!/^-[neE]+$/.test(a)) break;
    for (const f of a.slice(1)) {
      if (f === 'n') newline = false;
      else if (f === 'e') escapes = true;
      else escapes = false;
    }
  }
  let text = args.slice(i).join(' ');
  if (escapes) {
    const u = unescape(text);
    if (u.stop) return ok(u.text);
    text = u.text;
  }
  return ok(text + (newline ? '\n' : ''));
}

function number(arg: string, err: string[]): number {
  const s = arg.trim();
  if (s === '') return 0;
  if (/^[+-]?\d+$/.test(s)) return Number(s);
  if (/^[+-]?0x[0-9a-f]+$/i.test(s)) return Number.parseInt(s, 16);
  if (/^['"]./.test(s)) return s.codePointAt(1) ?? 0;
  const m = /^[+-]?\d+/.exec(s);
  err.push(`printf: invalid number '${arg}'\n`);
  return m ? Number(m[0]) : 0;
}

/** printf FORMAT [ARG…]: the format is reused while arguments remain, as POSIX says. */
export function printf(args: readonly string[]): Result {
  if (args.length === 0) return { out: '', err: 'printf: usage: printf FORMAT [ARGUMENT...]\n', status: 2 };
  const format = args[0] ?? '';
  const rest = args.slice(1);
  const err: string[] = [];
  let out = '';
  let k = 0;
  do {
    const startK = k;
    let stop = false;
    const text = format.replace(/%([-+ #0]*)(\d+|\*)?(?:\.(\d+))?([sdibcxXoufeEgG%])|\\(?:[0-7]{1,3}|.)/g, (m, flags: string, width: string | undefined, prec: string | undefined, conv: string | undefined) => {
      if (stop) return '';
      if (m.startsWith('\\')) {
        const u = unescape(m, true);
        if (u.stop) stop = true;
        return u.text;
      }
      if (conv === '%') return '%';
      const w = width === '*' ? number(rest[k++] ?? '', err) : width ? Number(width) : 0;
      const arg = rest[k++];
      let s: string;
      switch (conv) {
        case 's':
          s = arg ?? '';
          if (prec !== undefined) s = s.slice(0, Number(prec));
          break;
        case 'b': {
          const u = unescape(arg ?? '', true);
          s = u.text;
          if (u.stop) stop = true;
          break;
        }
        case 'c':
          s = (arg ?? '').slice(0, 1);
          break;
        case 'd':
        case 'i':
        case 'u':
          s = String(Math.trunc(number(arg ?? '', err)));
          if (flags.includes('+') && !s.startsWith('-')) s = '+' + s;
          break;
        case 'x':
        case 'X':
          s = Math.trunc(number(arg ?? '', err)).toString(16);
          if (conv === 'X') s = s.toUpperCase();
          break;
        case 'o':
          s = Math.trunc(number(arg ?? '', err)).toString(8);
          break;
        default: {
          const v = Number(arg ?? 0);
          if (!Number.isFinite(v)) err.push(`printf: invalid number '${arg}'\n`);
          const n = Number.isFinite(v) ? v : 0;
          s = conv === 'e' || conv === 'E' ? n.toExponential(Number(prec ?? 6)) : n.toFixed(Number(prec ?? 6));
        }
      }
      if (s.length < w) s = flags.includes('-') ? s.padEnd(w) : s.padStart(w, flags.includes('0') && conv !== 's' ? '0' : ' ');
      return s;
    });
    out += text;
    if (stop || k === startK) break;
  } while (k < rest.length);
  return { out, ...(err.length ? { err: err.join('') } : {}), status: err.length ? 1 : 0 };
}

/** What the shell knows of its file system, for test -f/-d and cat. */
export interface FileView {
  file(path: string): string | undefined;
  isDir(path: string): boolean;
}

function intArg(s: string, name: string): number {
  if (!/^\s*[+-]?\d+\s*$/.test(s)) throw new Error(`${name}: invalid number '${s}'`);
  return Number(s);
}

/** test / [ … ]: exit 0 true, 1 false, 2 on a usage error (with busybox's message). */
export function test(argv: readonly string[], fs: FileView, name = 'test'): Result {
  let args = [...argv];
  if (name === '[') {
    if (args[args.length - 1] !== ']') return { out: '', err: "[: missing ]\n", status: 2 };
    args = args.slice(0, -1);
  }
  try {
    return { out: '', status: expr(args, fs, name) ? 0 : 1 };
  } catch (e) {
    return { out: '', err: `sh: ${(e as Error).message}\n`, status: 2 };
  }
}

function expr(args: string[], fs: FileView, name: string): boolean {
  // -o binds looser than -a; both looser than ! and primaries.
  const or = args.indexOf('-o');
  if (or > 0) return expr(args.slice(0, or), fs, name) || expr(args.slice(or + 1), fs, name);
  const and = args.indexOf('-a', 1);
  if (and > 0 && args.length > 3) return expr(args.slice(0, and), fs, name) && expr(args.slice(and + 1), fs, name);
  if (args[0] === '!' && args.length > 1) return !expr(args.slice(1), fs, name);
  if (args[0] === '(' && args[args.length - 1] === ')') return expr(args.slice(1, -1), fs, name);
  const [a = '', op = '', b = ''] = args;
  if (args.length === 0) return false;
  if (args.length === 1) return a !== '';
  if (args.length === 2) {
    switch (a) {
      case '-z':
        return op === '';
      case '-n':
        return op !== '';
      case '-f':
        return fs.file(op) !== undefined;
      case '-d':
        return fs.isDir(op);
      case '-e':
      case '-r':
      case '-w':
        return fs.file(op) !== undefined || fs.isDir(op);
      case '-s':
        return (fs.file(op) ?? '') !== '';
      case '-x':
        return fs.isDir(op) || /^\/(usr\/)?(s?bin)\//.test(op);
      case '-L':
      case '-h':
      case '-p':
      case '-S':
      case '-b':
      case '-c':
        return false;
      case '-t':
        return false;
      default:
        throw new Error(`${name}: ${a}: unknown operand`);
    }
  }
  if (args.length === 3) {
    switch (op) {
      case '=':
      case '==':
        return a === b;
      case '!=':
        return a !== b;
      case '<':
        return a < b;
      case '>':
        return a > b;
      case '-eq':
        return intArg(a, name) === intArg(b, name);
      case '-ne':
        return intArg(a, name) !== intArg(b, name);
      case '-lt':
        return intArg(a, name) < intArg(b, name);
      case '-gt':
        return intArg(a, name) > intArg(b, name);
      case '-le':
        return intArg(a, name) <= intArg(b, name);
      case '-ge':
        return intArg(a, name) >= intArg(b, name);
      default:
        throw new Error(`${name}: ${op}: unknown operand`);
    }
  }
  throw new Error(`${name}: syntax error`);
}

/** seq [FIRST [INCREMENT]] LAST. */
export function seq(args: readonly string[], limit: number): Result {
  const nums = args.map(Number);
  if (nums.length === 0 || nums.length > 3 || nums.some((n) => !Number.isFinite(n))) return { out: '', err: `seq: invalid argument\n`, status: 1 };
  const [first, step, last] = nums.length === 1 ? [1, 1, nums[0] as number] : nums.length === 2 ? [nums[0] as number, 1, nums[1] as number] : (nums as [number, number, number]);
  if (step === 0) return { out: '', err: 'seq: invalid increment\n', status: 1 };
  const lines: string[] = [];
  for (let v = first; step > 0 ? v <= last : v >= last; v += step) {
    lines.push(String(v));
    if (lines.length >= limit) break;
  }
  return ok(lines.map((l) => l + '\n').join(''));
}

/** cat FILE…: the files it knows; stdin with no arguments. */
export function cat(args: readonly string[], fs: FileView, stdin: string): Result {
  const files = args.filter((a) => a !== '-u');
  if (files.length === 0) return ok(stdin);
  let out = '';
  let err = '';
  let status = 0;
  for (const f of files) {
    if (f === '-') {
      out += stdin;
      continue;
    }
    const content = fs.file(f);
    if (content !== undefined) out += content;
    else {
      err += fs.isDir(f) ? `cat: read error: Is a directory\n` : `cat: can't open '${f}': No such file or directory\n`;
      status = 1;
    }
  }
  return { out, ...(err ? { err } : {}), status };
}
