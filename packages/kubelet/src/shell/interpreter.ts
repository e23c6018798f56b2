// The emulated shell's interpreter: runs a parsed script (parser.ts) or a container's argv as a lazy,
// deterministic generator in virtual time. It yields what the process writes, with the virtual time of each
// write (ms after the container started), and ends with the exit code. `sleep` advances virtual time and
// nothing else does, so an endless `while true; do echo; sleep 1; done` is produced one line at a time and never
// materialised. A script that runs BUSY_LIMIT (4000) commands without sleeping is taken to spin: its output stops there
// and it "runs" silently until stopped. A program the shell does not know (a server: nginx, python app.py) runs
// silently until stopped; one command.ts knows to end by itself (wget, grep, …) ends at once with 0.
import { parseSleep } from '../pods/command.ts';
import { ArithError, evaluate } from './arith.ts';
import { cat, echo, printf, seq, test, type FileView, type Result } from './builtins.ts';
import { dateCommand } from './date.ts';
import { ContainerFs, ls, mkdir, normalize, rm } from './filesystem.ts';
import { curl, wget } from './http-client.ts';
import type { ShellNetwork } from './network.ts';
import { perl } from './perl.ts';
import { ps, type ProcessTable } from './ps.ts';
import { Input, read } from './read.ts';
import { kill } from './kill.ts';
import { stty, type TerminalSize } from './stty.ts';
import { ShellSyntaxError, parse, type AndOr, type Command, type List, type Pipeline, type Redirect, type Word } from './parser.ts';

/** What a process does, in order; `atMs` is virtual time since it started. */
export type ProcessEvent =
  | { kind: 'output'; atMs: number; stream: 'stdout' | 'stderr'; text: string }
  | { kind: 'exit'; atMs: number; exitCode: number }
  /** From `atMs` on it writes nothing more and runs until stopped (a server, `sleep infinity`, a spinning loop). */
  | { kind: 'forever'; atMs: number };

export interface ShellContext {
  /** Wall-clock ms when the process started: `date` prints startedAt + virtual time. */
  startedAt: number;
  /** The container's environment (its env with values, HOSTNAME, PATH, HOME). */
  env: Record<string, string>;
  hostname: string;
  /** Files the container has, by absolute path (/etc/hostname, /etc/hosts, …). */
  files?: Record<string, string>;
  /** A program name (no path) that ends by itself when the shell does not emulate it (wget, grep, …). */
  endsByItself?: (name: string) => boolean;
  /** The container's stdin is open (`stdin: true`, `kubectl run -i`): a shell with no script waits on it. */
  stdinOpen?: boolean;
  /** The container's file system, shared by its exec sessions (else one of the process' own, from `files`). */
  fs?: ContainerFs;
  /**
   * An exec session (kubectl exec, an attached shell): a program the shell does not know is not found
   * (`sh: x: not found`, 127) instead of being taken for a server that runs until stopped.
   */
  exec?: boolean;
  /** The container's processes (its PID namespace), for `ps`. */
  processes?: ProcessTable;
  /** The cluster network wget and curl reach (exec sessions); without it they end at once, silently, as before. */
  network?: ShellNetwork;
}

/** Commands run without a sleep in between before a script is taken to spin (it then runs on silently). */
export const BUSY_LIMIT = 4_000;
/** Sleeps in a row without output before a container's process in virtual time is taken to run on silently. */
export const SILENT_SLEEPS_LIMIT = 2_000;
/** Lines `seq` prints at most. */
const SEQ_LIMIT = 100_000;

/** `wait`: real I/O (a network exchange) the driver awaits before the shell goes on; no virtual time passes. */
type Step = { t: 'out'; stream: 'stdout' | 'stderr'; text: string } | { t: 'sleep'; ms: number } | { t: 'wait'; until: Promise<void> };
type Target = 'stdout' | 'stderr' | 'null' | { file: string; append: boolean } | { buf: string[] };
interface IO {
  fds: Record<number, Target>;
  stdin: Input;
}

class Exit {
  constructor(readonly code: number) {}
}
class LoopJump {
  constructor(
    readonly kind: 'break' | 'continue',
    readonly n: number,
  ) {}
}
class Spin {}

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh', 'ksh']);

function basename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

class Interpreter implements FileView {
  private vars = new Map<string, string>();
  private readonly exported = new Set<string>();
  private positional: string[] = [];
  private arg0 = 'sh';
  private status = 0;
  private elapsed = 0;
  private busy = 0;
  private errexit = false;
  private conditionDepth = 0;
  /** The status of the last command substitution: what a command of assignments alone returns. */
  private substStatus: number | undefined;
  private cwd = '/';
  /** The session's terminal (exec/attach with a tty), sized by the client's resize messages. */
  terminal: TerminalSize | undefined;
  private readonly fs: ContainerFs;
  private readonly files: Map<string, string>;

  constructor(private readonly ctx: ShellContext) {
    for (const [k, v] of Object.entries(ctx.env)) {
      this.vars.set(k, v);
      this.exported.add(k);
    }
    this.fs = ctx.fs ?? new ContainerFs(ctx.files);
    this.files = this.fs.files;
  }

  file(path: string): string | undefined {
    return this.files.get(this.abs(path));
  }

  isDir(path: string): boolean {
    return this.fs.isDir(this.abs(path));
  }

  /** The working directory; for a prompt, HOME as `~`. */
  directory(tilde = false): string {
    return tilde && this.cwd === this.vars.get('HOME') ? '~' : this.cwd;
  }

  private readonly abs = (path: string): string => {
    if (path === '/dev/null') return path;
    return normalize(path.startsWith('/') ? path : `${this.cwd}/${path}`);
  };

  /** Runs argv (a container's command + args) to its exit status. */
  *main(argv: readonly string[], stdin = ''): Generator<Step, number> {
    const io: IO = { fds: { 1: 'stdout', 2: 'stderr' }, stdin: new Input(stdin) };
    try {
      return yield* this.invoke(argv, {}, io);
    } catch (e) {
      if (e instanceof Exit) return e.code;
      throw e;
    }
  }

  /** Runs a script in this shell (its variables and directory stay): its status, and whether it ran `exit`. */
  *source(script: string): Generator<Step, { status: number; exited: boolean }> {
    const io: IO = { fds: { 1: 'stdout', 2: 'stderr' }, stdin: new Input('') };
    this.busy = 0;
    let list: List;
    try {
      list = parse(script);
    } catch (e) {
      if (!(e instanceof ShellSyntaxError)) throw e;
      yield { t: 'out', stream: 'stderr', text: `sh: ${e.message}\n` };
      this.status = 2;
      return { status: 2, exited: false };
    }
    try {
      this.status = yield* this.list(list, io);
      return { status: this.status, exited: false };
    } catch (e) {
      if (e instanceof Exit) return { status: e.code, exited: true };
      if (e instanceof LoopJump) return { status: 0, exited: false };
      throw e;
    }
  }

  private *write(io: IO, fd: number, text: string): Generator<Step, void> {
    if (!text) return;
    const t = io.fds[fd] ?? 'null';
    if (t === 'null') return;
    if (t === 'stdout' || t === 'stderr') yield { t: 'out', stream: t, text };
    else if ('buf' in t) t.buf.push(text);
    else this.files.set(this.abs(t.file), (this.files.get(this.abs(t.file)) ?? '') + text);
  }

  private *result(io: IO, r: Result): Generator<Step, number> {
    yield* this.write(io, 1, r.out);
    if (r.err) yield* this.write(io, 2, r.err);
    return r.status;
  }

  private *list(list: List, io: IO): Generator<Step, number> {
    let status = 0;
    for (const item of list) status = yield* this.andOr(item, io);
    return status;
  }

  private *andOr(item: AndOr, io: IO): Generator<Step, number> {
    let s = yield* this.pipeline(item.first, io);
    let lastRan = -1;
    for (const [k, { op, pipeline }] of item.rest.entries()) {
      if ((op === '&&') === (s === 0)) {
        s = yield* this.pipeline(pipeline, io);
        lastRan = k;
      }
    }
    this.status = s;
    // set -e: a failing command ends the script, unless it was tested (if/while, the left of && / ||, !).
    const negated = lastRan < 0 ? item.first.negate : item.rest[lastRan]?.pipeline.negate;
    if (this.errexit && s !== 0 && this.conditionDepth === 0 && !negated && lastRan === item.rest.length - 1) throw new Exit(s);
    return s;
  }

  private *pipeline(p: Pipeline, io: IO): Generator<Step, number> {
    let stdin = io.stdin;
    let s = 0;
    for (const [k, cmd] of p.commands.entries()) {
      const last = k === p.commands.length - 1;
      const buf: string[] = [];
      s = yield* this.command(cmd, last ? { ...io, stdin } : { fds: { ...io.fds, 1: { buf } }, stdin });
      stdin = new Input(buf.join(''));
    }
    return p.negate ? Number(s === 0) : s;
  }

  private *condition(list: List, io: IO): Generator<Step, number> {
    this.conditionDepth++;
    try {
      return yield* this.list(list, io);
    } finally {
      this.conditionDepth--;
    }
  }

  private *command(cmd: Command, outer: IO): Generator<Step, number> {
    const io = cmd.redirects.length ? yield* this.redirect(cmd.redirects, outer) : outer;
    switch (cmd.kind) {
      case 'simple':
        return yield* this.simple(cmd, io);
      case 'if': {
        for (const c of cmd.clauses) {
          if ((yield* this.condition(c.cond, io)) === 0) return yield* this.list(c.body, io);
        }
        return cmd.otherwise ? yield* this.list(cmd.otherwise, io) : 0;
      }
      case 'while': {
        let s = 0;
        for (;;) {
          const c = yield* this.condition(cmd.cond, io);
          if ((c === 0) === cmd.until) break;
          const r = yield* this.loopBody(cmd.body, io);
          if (r === 'break') break;
          s = r ?? s;
        }
        return s;
      }
      case 'for': {
        const items: string[] = [];
        if (cmd.items) for (const w of cmd.items) items.push(...(yield* this.expand(w, true)));
        else items.push(...this.positional);
        let s = 0;
        for (const item of items) {
          this.vars.set(cmd.name, item);
          const r = yield* this.loopBody(cmd.body, io);
          if (r === 'break') break;
          s = r ?? s;
        }
        return s;
      }
      case 'group':
        return cmd.subshell ? yield* this.subshell(cmd.body, io) : yield* this.list(cmd.body, io);
    }
  }

  /** One pass of a loop's body: its status, 'break', or undefined after a `continue` (outer levels rethrown). */
  private *loopBody(body: List, io: IO): Generator<Step, number | 'break' | undefined> {
    try {
      return yield* this.list(body, io);
    } catch (e) {
      if (!(e instanceof LoopJump)) throw e;
      if (e.n > 1) throw new LoopJump(e.kind, e.n - 1);
      return e.kind === 'break' ? 'break' : undefined;
    }
  }

  /** Runs a list in a subshell: variables, directory and `exit` stay inside. */
  private *subshell(list: List, io: IO, positional?: string[]): Generator<Step, number> {
    const saved = { vars: new Map(this.vars), positional: this.positional, cwd: this.cwd, errexit: this.errexit };
    if (positional) this.positional = positional;
    try {
      return yield* this.list(list, io);
    } catch (e) {
      if (e instanceof Exit) return e.code;
      if (e instanceof LoopJump) return 0;
      throw e;
    } finally {
      this.vars = saved.vars;
      this.positional = saved.positional;
      this.cwd = saved.cwd;
      this.errexit = saved.errexit;
    }
  }

  private tick(): void {
    if (++this.busy > BUSY_LIMIT) throw new Spin();
  }

  private *redirect(redirects: Redirect[], outer: IO): Generator<Step, IO> {
    const io: IO = { fds: { ...outer.fds }, stdin: outer.stdin };
    for (const r of redirects) {
      const target = (yield* this.expand(r.target, false)).join(' ');
      if (r.op === '<') {
        io.stdin = new Input(this.file(target) ?? '');
        continue;
      }
      if (r.op === '>&') {
        if (target === '-') delete io.fds[r.fd];
        else io.fds[r.fd] = outer.fds[Number(target)] ?? io.fds[Number(target)] ?? 'null';
        continue;
      }
      const t: Target =
        target === '/dev/null' ? 'null' : target === '/dev/stdout' ? (io.fds[1] ?? 'null') : target === '/dev/stderr' ? (io.fds[2] ?? 'null') : { file: target, append: r.op === '>>' };
      if (typeof t === 'object' && 'file' in t && !t.append) this.files.set(this.abs(target), '');
      io.fds[r.fd] = t;
    }
    return io;
  }

  private lookup(name: string): string | undefined {
    if (name === '?') return String(this.status);
    if (name === '#') return String(this.positional.length);
    if (name === '$') return '1';
    if (name === '!') return '';
    if (name === '-') return this.errexit ? 'e' : '';
    if (name === '0') return this.arg0;
    if (/^\d+$/.test(name)) return this.positional[Number(name) - 1];
    if (name === '@' || name === '*') return this.positional.join(' ');
    if (name === 'PWD') return this.cwd;
    if (name === 'RANDOM') return String((this.elapsed * 7919 + this.busy * 104729) % 32768);
    if (name === 'SECONDS') return String(Math.floor(this.elapsed / 1000));
    return this.vars.get(name);
  }

  /** Expands a word into fields (split: unquoted expansions split at blanks, as IFS does by default). */
  private *expand(word: Word, split: boolean): Generator<Step, string[]> {
    const fields: string[] = [];
    let cur = '';
    let has = false;
    const add = (value: string, quoted: boolean) => {
      if (quoted || !split) {
        cur += value;
        has = true;
        return;
      }
      value.split(/[ \t\n]+/).forEach((piece, k) => {
        if (k > 0 && (has || cur)) {
          fields.push(cur);
          cur = '';
          has = false;
        }
        cur += piece;
      });
    };
    for (const part of word.parts) {
      switch (part.kind) {
        case 'lit':
          cur += part.text;
          if (part.quoted) has = true;
          break;
        case 'var': {
          let v = this.lookup(part.name);
          if (part.op) {
            const empty = v === undefined || (part.op.startsWith(':') && v === '');
            const arg = () => this.expand(part.arg ?? { parts: [] }, false);
            if (part.op === ':+') v = empty ? '' : (yield* arg()).join(' ');
            else if (empty) {
              v = (yield* arg()).join(' ');
              if (part.op === ':=') this.vars.set(part.name, v);
            }
          }
          add(v ?? '', part.quoted);
          break;
        }
        case 'arith': {
          const text = (yield* this.expand(part.expr, false)).join(' ');
          let n: number;
          try {
            n = evaluate(text, (name) => this.lookup(name));
          } catch (e) {
            if (!(e instanceof ArithError)) throw e;
            yield { t: 'out', stream: 'stderr', text: `sh: ${e.message}\n` };
            throw new Exit(2);
          }
          add(String(n), part.quoted);
          break;
        }
        case 'cmd': {
          const buf: string[] = [];
          this.substStatus = yield* this.subshell(part.script, { fds: { 1: { buf }, 2: 'stderr' }, stdin: new Input('') });
          add(buf.join('').replace(/\n+$/, ''), part.quoted);
          break;
        }
      }
    }
    if (has || cur) fields.push(cur);
    return fields;
  }

  private *simple(cmd: Extract<Command, { kind: 'simple' }>, io: IO): Generator<Step, number> {
    this.tick();
    this.substStatus = undefined;
    const argv: string[] = [];
    for (const w of cmd.words) argv.push(...(yield* this.expand(w, true)));
    const assigns: Record<string, string> = {};
    for (const a of cmd.assigns) assigns[a.name] = (yield* this.expand(a.value, false)).join('');
    if (argv.length === 0) {
      for (const [k, v] of Object.entries(assigns)) this.vars.set(k, v);
      return this.substStatus ?? 0;
    }
    return yield* this.invoke(argv, assigns, io);
  }

  private environment(extra: Record<string, string>): Record<string, string> {
    const env: Record<string, string> = {};
    for (const k of this.exported) {
      const v = this.vars.get(k);
      if (v !== undefined) env[k] = v;
    }
    return { ...env, ...extra };
  }

  private *sleep(ms: number): Generator<Step, void> {
    yield { t: 'sleep', ms };
    this.elapsed += ms;
    if (ms > 0) this.busy = 0;
  }

  /** Runs one command with its arguments expanded. */
  private *invoke(argv: readonly string[], assigns: Record<string, string>, io: IO): Generator<Step, number> {
    const [path = '', ...args] = argv;
    const name = basename(path);
    switch (name) {
      case ':':
      case 'true':
        return 0;
      case 'false':
        return 1;
      case 'echo':
        return yield* this.result(io, echo(args));
      case 'printf':
        return yield* this.result(io, printf(args));
      case 'test':
      case '[':
        return yield* this.result(io, test(args, this, name));
      case '[[':
        return yield* this.result(io, test(args[args.length - 1] === ']]' ? [...args.slice(0, -1), ']'] : args, this, '['));
      case 'exit': {
        const code = args[0] === undefined ? this.status : Number.parseInt(args[0], 10);
        throw new Exit(Number.isFinite(code) ? code & 255 : 2);
      }
      case 'break':
      case 'continue':
        throw new LoopJump(name, Math.max(1, Number(args[0] ?? 1) || 1));
      case 'sleep': {
        let seconds = 0;
        for (const a of args) {
          const s = parseSleep(a);
          if (s === undefined) return yield* this.result(io, { out: '', err: `sleep: invalid number '${a}'\n`, status: 1 });
          seconds += s;
        }
        if (args.length === 0) return yield* this.result(io, { out: '', err: 'sleep: missing operand\n', status: 1 });
        yield* this.sleep(seconds === Infinity ? Infinity : Math.round(seconds * 1000));
        return 0;
      }
      case 'date':
        return yield* this.result(io, dateCommand(args, this.ctx.startedAt + this.elapsed));
      case 'hostname':
        return yield* this.result(io, { out: `${this.ctx.hostname}\n`, status: 0 });
      case 'cat':
        return yield* this.result(io, cat(args, this, args.every((a) => a === '-u') || args.includes('-') ? io.stdin.takeAll() : ''));
      case 'seq':
        return yield* this.result(io, seq(args, SEQ_LIMIT));
      case 'perl':
        return yield* this.result(io, perl(args));
      case 'ps':
        return yield* this.result(io, ps(this.ctx.processes, argv));
      case 'kill':
        return yield* this.result(io, kill(this.ctx.processes, args));
      case 'wget':
      case 'curl': {
        const network = this.ctx.network;
        if (!network) break;
        let got: Result = { out: '', status: 1 };
        const io_ = { network, writeFile: (p: string, text: string) => void this.files.set(this.abs(p), text), fileExists: (p: string) => this.file(p) !== undefined };
        yield { t: 'wait', until: (name === 'wget' ? wget(args, io_) : curl(args, io_)).then((r) => void (got = r)) };
        // Real time passed on the network: a loop of requests is not a spin.
        this.busy = 0;
        return yield* this.result(io, got);
      }
      case 'env':
      case 'printenv': {
        const env = this.environment(assigns);
        if (name === 'printenv' && args.length) {
          const found = args.filter((a) => a in env);
          return yield* this.result(io, { out: found.map((a) => `${env[a]}\n`).join(''), status: found.length === args.length ? 0 : 1 });
        }
        if (name === 'env' && args.length) {
          // env NAME=v… cmd: runs cmd with those set.
          const extra = { ...assigns };
          let k = 0;
          for (; k < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[k] ?? ''); k++) {
            const a = args[k] ?? '';
            extra[a.slice(0, a.indexOf('='))] = a.slice(a.indexOf('=') + 1);
          }
          if (k < args.length) return yield* this.invoke(args.slice(k), extra, io);
          return yield* this.result(io, { out: Object.entries({ ...env, ...extra }).map(([a, b]) => `${a}=${b}\n`).join(''), status: 0 });
        }
        return yield* this.result(io, { out: Object.entries(env).map(([a, b]) => `${a}=${b}\n`).join(''), status: 0 });
      }
      case 'export':
      case 'readonly':
      case 'local':
        for (const a of args) {
          const eq = a.indexOf('=');
          const key = eq >= 0 ? a.slice(0, eq) : a;
          if (key.startsWith('-')) continue;
          if (eq >= 0) this.vars.set(key, a.slice(eq + 1));
          if (name === 'export') this.exported.add(key);
        }
        return 0;
      case 'unset':
        for (const a of args) if (!a.startsWith('-')) this.vars.delete(a);
        return 0;
      case 'set':
        for (const a of args) {
          if (/^-[a-z]*e/.test(a)) this.errexit = true;
          if (/^\+[a-z]*e/.test(a)) this.errexit = false;
        }
        if (args[0] === '--') this.positional = args.slice(1);
        return 0;
      case 'shift':
        this.positional = this.positional.slice(Number(args[0] ?? 1) || 1);
        return 0;
      case 'cd': {
        const dir = args[0] ?? this.vars.get('HOME') ?? '/';
        if (!this.isDir(dir)) return yield* this.result(io, { out: '', err: `sh: cd: can't cd to ${dir}: No such file or directory\n`, status: 2 });
        this.cwd = this.abs(dir);
        return 0;
      }
      case 'pwd':
        return yield* this.result(io, { out: `${this.cwd}\n`, status: 0 });
      case 'mkdir':
        return yield* this.result(io, mkdir(this.fs, args, this.abs));
      case 'touch':
        for (const a of args) if (!a.startsWith('-') && this.file(a) === undefined) this.files.set(this.abs(a), '');
        return 0;
      case 'rm':
        return yield* this.result(io, rm(this.fs, args, this.abs));
      case 'ls':
        return yield* this.result(io, ls(this.fs, args, this.abs, this.ctx.startedAt + this.elapsed));
      case 'read': {
        const r = read(args, io.stdin);
        if (r.prompt) yield* this.write(io, 2, r.prompt);
        for (const [k, v] of Object.entries(r.vars)) this.vars.set(k, v);
        return yield* this.result(io, { out: '', ...(r.err ? { err: r.err } : {}), status: r.status });
      }
      case 'whoami':
        return yield* this.result(io, { out: 'root\n', status: 0 });
      case 'stty':
        return yield* this.result(io, stty(args, this.terminal));
      case 'id':
        return yield* this.result(io, { out: 'uid=0(root) gid=0(root) groups=0(root),10(wheel)\n', status: 0 });
      case 'uname':
        return yield* this.result(io, { out: args.includes('-a') ? `Linux ${this.ctx.hostname} 6.8.0-kemu #1 SMP x86_64 GNU/Linux\n` : 'Linux\n', status: 0 });
      case 'trap':
      case 'wait':
      case 'umask':
      case 'ulimit':
      case 'sync':
        return 0;
      case 'tail':
        if (args.includes('-f') || args.includes('-F')) {
          yield* this.sleep(Infinity);
          return 0;
        }
        break;
      case 'exec': {
        if (args.length === 0) return 0;
        throw new Exit(yield* this.invoke(args, assigns, io));
      }
      default:
        if (SHELLS.has(name)) return yield* this.shell(args, assigns, io);
    }
    if (this.ctx.endsByItself?.(name)) return 0;
    if (this.ctx.exec) return yield* this.result(io, { out: '', err: `sh: ${path}: not found\n`, status: 127 });
    // A program we do not emulate: a server, taken to run until stopped.
    yield* this.sleep(Infinity);
    return 0;
  }

  /** sh -c 'script' [name [args…]]; sh FILE runs a file the shell knows, else runs until stopped. */
  private *shell(args: readonly string[], assigns: Record<string, string>, io: IO): Generator<Step, number> {
    const c = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
    let script: string | undefined;
    let rest: string[] = [];
    if (c >= 0 && args[c + 1] !== undefined) {
      script = args[c + 1];
      rest = args.slice(c + 2);
    } else {
      const file = args.find((a) => !a.startsWith('-'));
      script = file !== undefined ? this.file(file) : undefined;
      if (file !== undefined) rest = [file, ...args.slice(args.indexOf(file) + 1)];
      if (script === undefined) {
        // `sh` with no script reads its stdin: with none open it ends at once, else it waits on it; an unknown file runs on.
        if (file === undefined && !this.ctx.stdinOpen) return 0;
        yield* this.sleep(Infinity);
        return 0;
      }
    }
    let list: List;
    try {
      list = parse(script ?? '');
    } catch (e) {
      if (!(e instanceof ShellSyntaxError)) throw e;
      return yield* this.result(io, { out: '', err: `sh: ${e.message}\n`, status: 2 });
    }
    const saved = { arg0: this.arg0, exported: new Map(this.vars), errexit: this.errexit };
    this.arg0 = rest[0] ?? 'sh';
    for (const [k, v] of Object.entries(assigns)) this.vars.set(k, v);
    this.errexit = false;
    try {
      return yield* this.subshell(list, io, rest.slice(1));
    } finally {
      this.arg0 = saved.arg0;
      this.vars = saved.exported;
      this.errexit = saved.errexit;
    }
  }
}

/** Runs argv as a container's process: its timed output, then its exit (or that it runs on). */
export function* runProcess(argv: readonly string[], ctx: ShellContext): Generator<ProcessEvent, void> {
  const gen = new Interpreter(ctx).main(argv);
  let at = 0;
  // A loop that only sleeps (`while sleep 1; do wget …; done` without a network) writes nothing, ever: it is
  // taken to run on silently rather than looked ahead of without end.
  let silent = 0;
  for (;;) {
    let r: IteratorResult<Step, number>;
    try {
      r = gen.next();
    } catch (e) {
      if (e instanceof Spin) {
        yield { kind: 'forever', atMs: at };
        return;
      }
      throw e;
    }
    if (r.done) {
      yield { kind: 'exit', atMs: at, exitCode: r.value };
      return;
    }
    const step = r.value;
    if (step.t === 'out') {
      silent = 0;
      yield { kind: 'output', atMs: at, stream: step.stream, text: step.text };
    }
    // In virtual time there is no network (a live process, below, has one): nothing to wait for.
    else if (step.t === 'wait') continue;
    else if (step.ms === Infinity || ++silent > SILENT_SLEEPS_LIMIT) {
      yield { kind: 'forever', atMs: at };
      return;
    } else at += step.ms;
  }
}

/**
 * Runs argv as a container's process in real time (live-process.ts drives it): its steps as an exec session's,
 * so its sleeps are waited for and its wget/curl reach `ctx.network`; a spin runs on silently.
 */
export function* liveProcess(argv: readonly string[], ctx: ShellContext): Generator<Step, number> {
  try {
    return yield* new Interpreter(ctx).main(argv);
  } catch (e) {
    if (!(e instanceof Spin)) throw e;
    yield { t: 'sleep', ms: Infinity };
    return 0;
  }
}

/** Whether the shell reads this script (a syntax error leaves the container to command.ts' static reading). */
export function parses(script: string): boolean {
  try {
    parse(script);
    return true;
  } catch (e) {
    if (e instanceof ShellSyntaxError) return false;
    throw e;
  }
}

/** What a running shell does next: write, or wait (virtual ms; Infinity: it runs on silently until stopped). */
export type ShellStep = Step;

/**
 * A shell that lives across scripts, as an exec'd or attached `sh` reading its input: its variables, directory
 * and the container's file system stay from one line to the next. A program it does not know is not found.
 */
export class ShellSession {
  private readonly sh: Interpreter;

  constructor(ctx: ShellContext) {
    this.sh = new Interpreter({ ...ctx, exec: true });
  }

  /** The terminal is (re)sized: the client's resize message; `stty size` reads it. */
  resize(size: TerminalSize): void {
    this.sh.terminal = { ...size };
  }

  /** busybox ash's prompt for root: the directory (`~` for HOME), then ` # `. */
  prompt(): string {
    return `${this.sh.directory(true)} # `;
  }

  /** One line (or more) of input: its status, and whether it ran `exit` (the shell is then gone). */
  *source(script: string): Generator<Step, { status: number; exited: boolean }> {
    try {
      return yield* this.sh.source(script);
    } catch (e) {
      if (!(e instanceof Spin)) throw e;
      yield { t: 'sleep', ms: Infinity };
      return { status: 0, exited: true };
    }
  }

  /** An exec'd command line (argv, not a script) with what it reads on stdin, to its exit status. */
  *run(argv: readonly string[], stdin = ''): Generator<Step, number> {
    try {
      return yield* this.sh.main(argv, stdin);
    } catch (e) {
      if (!(e instanceof Spin)) throw e;
      yield { t: 'sleep', ms: Infinity };
      return 0;
    }
  }
}

/** Whether a script is incomplete (an open quote, `if` without `fi`, a trailing `|`): the shell reads more lines. */
export function incomplete(script: string): boolean {
  try {
    parse(script);
    return false;
  } catch (e) {
    if (!(e instanceof ShellSyntaxError)) throw e;
    return /unterminated|expected "/.test(e.message) || /(\|\||&&|\||\\)\s*$/.test(script);
  }
}
