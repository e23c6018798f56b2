// What an emulated container does, read from its spec: how long it runs, the exit code it ends with, and how
// long it takes to stop after SIGTERM. No process is run; docs/kubelet.md lists the rules for users.
import type { Container } from '@kemu/api';

/** Annotation prefix for explicit behaviour; `<key>.<container>` overrides `<key>` for one container. */
export const ANNOTATION_PREFIX = 'kemu.dev/';
export const RUN_SECONDS = 'kemu.dev/run-seconds';
export const EXIT_CODE = 'kemu.dev/exit-code';
export const TERMINATION_SECONDS = 'kemu.dev/termination-seconds';

export interface Behaviour {
  /** Milliseconds from start to exit; null = runs until stopped. */
  runMs: number | null;
  /** Exit code when it ends on its own. */
  exitCode: number;
  /** Milliseconds it takes to stop once sent SIGTERM (bounded by the grace period). */
  stopMs: number;
}

export const RUNS_FOREVER: Behaviour = Object.freeze({ runMs: null, exitCode: 0, stopMs: 0 });

export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'ash', 'dash', 'zsh', 'ksh']);

/** Commands that end by themselves (their run time is 0 unless they are `sleep`); the emulated shell ends them at once. */
export const FINITE: ReadonlySet<string> = new Set([
  'echo', 'printf', 'true', 'false', ':', 'exit', 'sleep', 'date', 'env', 'printenv', 'ls', 'cat', 'test', '[',
  'mkdir', 'touch', 'rm', 'cp', 'mv', 'ln', 'chmod', 'chown', 'cd', 'export', 'set', 'unset', 'hostname',
  'id', 'whoami', 'uname', 'pwd', 'wc', 'head', 'grep', 'sed', 'awk', 'cut', 'sort', 'tee', 'trap', 'exec',
  'sync', 'nslookup', 'wget', 'curl', 'ping', 'seq', 'expr', 'basename', 'dirname', 'du', 'df', 'ps', 'stty',
]);

/** Seconds of a `sleep` argument: "5", "1.5", "2s", "1m", "1h", "1d"; Infinity for "infinity". */
export function parseSleep(arg: string | undefined): number | undefined {
  if (arg === undefined) return undefined;
  if (arg === 'infinity' || arg === 'inf') return Infinity;
  const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg);
  if (!m || m[1] === undefined) return undefined;
  const mult = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * mult;
}

function basename(p: string): string {
  const i = p.lastIndexOf('/');
  return i >= 0 ? p.slice(i + 1) : p;
}

/** Splits a shell line into words, honouring single and double quotes (enough for the forms we read). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let quote: '"' | "'" | null = null;
  let has = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) words.push(cur);
      cur = '';
      has = false;
    } else {
      cur += ch;
    }
  }
  if (has || cur) words.push(cur);
  return words;
}

/** Splits a script into simple statements at `;`, `&&`, `||`, `&`, `|` and newlines outside quotes. */
function statements(script: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (let i = 0; i < script.length; i++) {
    const ch = script[i] ?? '';
    if (quote) {
      cur += ch;
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      cur += ch;
    } else if (ch === ';' || ch === '\n' || ch === '&' || ch === '|') {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
    } else {
      cur += ch;
    }
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

const LOOP = /(^|[\s;&|(])(while|until|for)\s/;

/** What a command does when run: null runMs = it never ends by itself; `output` is what its echos print. */
export interface Run {
  runMs: number | null;
  exitCode: number;
  output: string;
}

const FOREVER: Run = Object.freeze({ runMs: null, exitCode: 0, output: '' });

/**
 * How a command line is read. As a container, a program we do not know is taken to be a server (it runs
 * forever); as a probe's exec command (`pg_isready`, `redis-cli ping`) it is taken to answer 0 at once.
 */
type Mode = 'container' | 'probe';

/** What echo/printf print: enough for a probe's output in an Unhealthy event. */
function printed(cmd: string, words: string[]): string {
  if (cmd === 'echo') {
    const noNewline = words[1] === '-n';
    return words.slice(noNewline ? 2 : 1).join(' ') + (noNewline ? '' : '\n');
  }
  if (cmd === 'printf') return (words[1] ?? '').replace(/\\n/g, '\n');
  return '';
}

function runScript(script: string, mode: Mode, files?: FileView): Run {
  if (LOOP.test(script)) return FOREVER;
  let seconds = 0;
  let status = 0;
  let output = '';
  for (const stmt of statements(script)) {
    let words = shellWords(stmt);
    // Leading assignments (FOO=bar cmd) and `exec` don't change what runs.
    while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? '')) words = words.slice(1);
    if (words[0] === 'exec') words = words.slice(1);
    const cmd = basename(words[0] ?? '');
    if (!cmd || cmd === '{' || cmd === '}' || cmd === 'then' || cmd === 'fi' || cmd === 'do' || cmd === 'done') continue;
    if (cmd === 'if' || cmd === 'else' || cmd === 'elif') continue;
    if (cmd === 'exit') {
      const code = words[1] === undefined ? status : Number.parseInt(words[1], 10);
      return { runMs: seconds * 1000, exitCode: Number.isFinite(code) ? code & 255 : 2, output };
    }
    if (cmd === 'sleep') {
      const s = parseSleep(words[1]);
      if (s === Infinity) return FOREVER;
      seconds += s ?? 0;
      status = s === undefined ? 1 : 0;
      continue;
    }
    if (cmd === 'tail' && words.includes('-f')) return FOREVER;
    if (SHELLS.has(cmd)) {
      const i = words.indexOf('-c');
      if (i >= 0 && words[i + 1] !== undefined) {
        const inner = runScript(words[i + 1] ?? '', mode, files);
        if (inner.runMs === null) return FOREVER;
        seconds += inner.runMs / 1000;
        status = inner.exitCode;
        output += inner.output;
        continue;
      }
      return FOREVER;
    }
    if (!FINITE.has(cmd) && mode === 'container') return FOREVER;
    const missing = files && fileCheck(cmd, words, files);
    if (missing) {
      output += missing.output;
      status = 1;
      continue;
    }
    output += printed(cmd, words);
    status = cmd === 'false' ? 1 : 0;
  }
  return { runMs: seconds * 1000, exitCode: status, output };
}

function runArgv(argv: readonly string[], mode: Mode, files?: FileView): Run {
  if (argv.length === 0) return mode === 'probe' ? { runMs: 0, exitCode: 0, output: '' } : FOREVER;
  const cmd = basename(argv[0] ?? '');
  if (cmd === 'sleep') {
    const s = parseSleep(argv[1]);
    if (s === undefined) return { runMs: 0, exitCode: 1, output: '' };
    return s === Infinity ? FOREVER : { runMs: s * 1000, exitCode: 0, output: '' };
  }
  if (cmd === 'true') return { runMs: 0, exitCode: 0, output: '' };
  if (cmd === 'false') return { runMs: 0, exitCode: 1, output: '' };
  if (cmd === 'exit') {
    const code = Number.parseInt(argv[1] ?? '0', 10);
    return { runMs: 0, exitCode: Number.isFinite(code) ? code & 255 : 2, output: '' };
  }
  if (SHELLS.has(cmd)) {
    const i = argv.indexOf('-c');
    if (i >= 0 && argv[i + 1] !== undefined) return runScript(argv[i + 1] ?? '', mode, files);
    return FOREVER;
  }
  if (cmd === 'tail' && argv.includes('-f')) return FOREVER;
  if (mode === 'probe') {
    const missing = files && fileCheck(cmd, [...argv], files);
    if (missing) return { runMs: 0, exitCode: 1, output: missing.output };
    return { runMs: 0, exitCode: 0, output: printed(cmd, [...argv]) };
  }
  return FOREVER;
}

function behaviourOf(r: Run): Behaviour {
  return r.runMs === null ? RUNS_FOREVER : { runMs: r.runMs, exitCode: r.exitCode, stopMs: 0 };
}

/** Behaviour of a shell script: the sum of its sleeps and its exit code; null runMs for loops or servers. */
export function scriptBehaviour(script: string): Behaviour {
  return behaviourOf(runScript(script, 'container'));
}

/** Behaviour of an argv (command + args). */
export function argvBehaviour(argv: readonly string[]): Behaviour {
  return behaviourOf(runArgv(argv, 'container'));
}

/**
 * What a probe's exec command does: its time, exit code and output (unknown programs answer 0 at once).
 * With `files`, `cat`/`ls`/`test -f`/`[ -e … ]`/`stat` of a file the container creates or removes see it as
 * it is at that moment (the liveness example: `touch /tmp/healthy; sleep 30; rm -f /tmp/healthy`).
 */
export function probeCommand(argv: readonly string[], files?: FileView): Run {
  return runArgv(argv, 'probe', files);
}

/** A file the container's command creates (touch, `> f`) or removes (rm), at ms after the container started. */
export interface FileEvent {
  path: string;
  at: number;
  exists: boolean;
}

/** The container's file events and the moment (ms since the container started) a probe looks at them. */
export interface FileView {
  events: readonly FileEvent[];
  sinceMs: number;
}

/** The files a container's `sh -c` script touches, redirects to or removes, with when (its sleeps before). */
export function containerFiles(c: Container): FileEvent[] {
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  const i = argv.indexOf('-c');
  if (!SHELLS.has(basename(argv[0] ?? '')) || i < 0 || argv[i + 1] === undefined) return [];
  const out: FileEvent[] = [];
  let ms = 0;
  for (const stmt of statements(argv[i + 1] ?? '')) {
    const words = shellWords(stmt);
    const cmd = basename(words[0] ?? '');
    const args = words.slice(1).filter((w) => !w.startsWith('-') && !w.startsWith('>'));
    if (cmd === 'sleep') {
      const s = parseSleep(words[1]);
      if (s === undefined || s === Infinity) break;
      ms += s * 1000;
      continue;
    }
    if (cmd === 'touch') for (const path of args) out.push({ path, at: ms, exists: true });
    else if (cmd === 'rm') for (const path of args) out.push({ path, at: ms, exists: false });
    // `echo ok > /tmp/ready`, `echo ok >/tmp/ready`, `>>` too.
    words.forEach((w, k) => {
      const path = w === '>' || w === '>>' ? words[k + 1] : /^>>?[^>]/.test(w) ? w.replace(/^>>?/, '') : undefined;
      if (path) out.push({ path, at: ms, exists: true });
    });
  }
  return out;
}

/** Whether `path` exists at the view's moment; undefined when the container never mentions it. */
function fileExists(files: FileView, path: string): boolean | undefined {
  const mine = files.events.filter((e) => e.path === path);
  if (mine.length === 0) return undefined;
  let exists = mine[0]?.exists === false; // removed first: it was in the image
  for (const e of mine) if (e.at <= files.sinceMs) exists = e.exists;
  return exists;
}

/** A file-reading command on a file that is not there: its failure output (busybox wording), else undefined. */
function fileCheck(cmd: string, words: string[], files: FileView): { output: string } | undefined {
  if (!['cat', 'ls', 'test', '[', 'stat', 'head'].includes(cmd)) return undefined;
  const args = words.slice(1).filter((w) => !w.startsWith('-') && w !== ']');
  for (const path of args) {
    if (fileExists(files, path) !== false) continue;
    if (cmd === 'cat' || cmd === 'head') return { output: `${cmd}: can't open '${path}': No such file or directory\n` };
    if (cmd === 'ls' || cmd === 'stat') return { output: `${cmd}: ${path}: No such file or directory\n` };
    return { output: '' };
  }
  return undefined;
}

export function annotation(annotations: Record<string, string> | undefined, key: string, container: string): string | undefined {
  return annotations?.[`${key}.${container}`] ?? annotations?.[key];
}

function seconds(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (v === 'infinity' || v === '-1') return Infinity;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The container's behaviour: annotations win over what the command implies. */
export function containerBehaviour(c: Container, annotations?: Record<string, string>): Behaviour {
  const base = argvBehaviour([...(c.command ?? []), ...(c.args ?? [])]);
  const out: Behaviour = { ...base };
  const run = seconds(annotation(annotations, RUN_SECONDS, c.name));
  if (run !== undefined) out.runMs = run === Infinity ? null : run * 1000;
  const exit = annotation(annotations, EXIT_CODE, c.name);
  if (exit !== undefined && /^\d+$/.test(exit)) {
    out.exitCode = Number(exit) & 255;
    // An exit code without a run time means the container exits at once.
    if (run === undefined && out.runMs === null) out.runMs = 0;
  }
  const stop = seconds(annotation(annotations, TERMINATION_SECONDS, c.name));
  if (stop !== undefined) out.stopMs = stop === Infinity ? Number.MAX_SAFE_INTEGER : stop * 1000;
  return out;
}

/** Milliseconds a preStop hook takes: `sleep: {seconds}` or an exec command read like a container's. */
export function preStopMs(c: Container): number {
  const pre = c.lifecycle?.preStop;
  if (!pre) return 0;
  if (pre.sleep) return Math.max(0, pre.sleep.seconds) * 1000;
  const argv = pre.exec?.command ?? [];
  const b = argvBehaviour(argv);
  return b.runMs ?? Number.MAX_SAFE_INTEGER;
}
