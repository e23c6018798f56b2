// An exec session in a running container (the kubelet's ServeExec → the runtime's Exec): the command runs in
// the container's emulated shell over its file system. `sh` with stdin and no script reads commands from
// stdin (interactive.ts); `tar` reads and writes real archives (kubectl cp); a command that reads stdin gets
// all of it before it runs; anything else runs at once. A program the image lacks fails as containerd and runc
// report it. The outcome goes on the error channel as the kubelet writes it (protocol.ts).
import { randomBytes } from 'node:crypto';
import { SHELLS } from '../pods/command.ts';
import { ShellSession } from '../shell/interpreter.ts';
import { tar } from '../shell/tar.ts';
import type { Channels } from './channels.ts';
import type { RunningContainer } from './containers.ts';
import { drive } from './driver.ts';
import { InteractiveShell } from './interactive.ts';
import { outcomeMessage } from './protocol.ts';

/** Programs the emulated shell runs (its builtins and the text tools it emulates), beside the shells. */
export const EXEC_PROGRAMS: ReadonlySet<string> = new Set([
  ':', 'true', 'false', 'echo', 'printf', 'test', '[', 'exit', 'sleep', 'date', 'hostname', 'cat', 'seq', 'env', 'printenv', 'export', 'unset', 'set',
  'cd', 'pwd', 'mkdir', 'touch', 'rm', 'ls', 'whoami', 'id', 'uname', 'sync', 'tail', 'exec', 'tar', 'ps', 'kill', 'stty',
]);

/** Commands that read their stdin when given no file (they wait for all of it before running). */
const STDIN_READERS: ReadonlySet<string> = new Set(['cat', 'tar']);

function basename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** Whether the image has the program: the emulated ones, less bash in busybox/alpine images (they have only ash). */
export function hasProgram(image: string, path: string, endsByItself: (name: string) => boolean): boolean {
  const name = basename(path);
  if (name === 'bash' && /(^|\/)(busybox|alpine)(:|@|$)/.test(image)) return false;
  return SHELLS.has(name) || EXEC_PROGRAMS.has(name) || endsByItself(name);
}

/** The Status containerd's CRI gives when runc cannot start the program (kubectl prints its message and exits 1). */
export function notFoundStatus(path: string): string {
  const cause = path.includes('/') ? `exec: "${path}": stat ${path}: no such file or directory` : `exec: "${path}": executable file not found in $PATH`;
  const err = `error executing command in container: failed to exec in container: failed to start exec "${randomBytes(32).toString('hex')}": OCI runtime exec failed: exec failed: unable to start container process: ${cause}: unknown`;
  return JSON.stringify({ metadata: {}, status: 'Failure', message: `Internal error occurred: ${err}`, reason: 'InternalError', details: { causes: [{ message: err }] }, code: 500 });
}

function collect(ch: Channels): Promise<Buffer> {
  const parts: Buffer[] = [];
  return new Promise((resolve) => ch.on({ stdin: (d) => parts.push(d), stdinEnd: () => resolve(Buffer.concat(parts)) }));
}

export interface ExecRequest {
  argv: string[];
  stdin: boolean;
}

export async function runExec(ch: Channels, c: RunningContainer, req: ExecRequest): Promise<void> {
  // The exec'd process is in the container's process table while it runs (ps shows it).
  const pid = c.state.processes.spawn(req.argv.join(' '));
  try {
    await execIn(ch, c, req);
  } finally {
    c.state.processes.exit(pid);
  }
}

async function execIn(ch: Channels, c: RunningContainer, req: ExecRequest): Promise<void> {
  const { argv } = req;
  const path = argv[0] ?? '';
  const name = basename(path);
  const ctx = c.state.context;
  const write = (stream: 'stdout' | 'stderr', text: string) => ch.write(stream, ch.tty ? text.replace(/\r?\n/g, '\r\n') : text);
  if (!hasProgram(c.spec.image ?? '', path, ctx.endsByItself ?? (() => false))) {
    // The runtime could not start it: a failure, not an exit code (v1–v3 get the message alone).
    const status = notFoundStatus(path);
    return ch.finish(ch.protocol.version >= 4 ? status : (JSON.parse(status) as { message: string }).message);
  }
  const script = argv.slice(1).some((a) => !a.startsWith('-') || /^-[a-z]*c/.test(a));
  if (SHELLS.has(name) && !script && req.stdin) {
    const session = new ShellSession(ctx);
    const shell = new InteractiveShell(session, { tty: ch.tty, write: (s, t) => ch.write(s, t), signal: ch.signal });
    ch.on({ stdin: (d) => shell.input(d), stdinEnd: () => shell.end(), ...(ch.tty ? { resize: (size) => session.resize(size) } : {}) });
    shell.start();
    const code = await shell.done;
    if (code !== undefined) ch.finish(outcomeMessage(ch.protocol, argv, code));
    return;
  }
  if (name === 'tar') {
    const extracting = argv.slice(1).some((a, k) => (k === 0 || a.startsWith('-')) && !a.startsWith('--') && /[xt]/.test(a));
    const input = extracting && req.stdin ? await collect(ch) : Buffer.alloc(0);
    const r = await tar(c.state.fs, argv.slice(1), input, '/');
    ch.write('stdout', r.out);
    write('stderr', r.err);
    return ch.finish(outcomeMessage(ch.protocol, argv, r.status));
  }
  const readsStdin = req.stdin && STDIN_READERS.has(name) && argv.slice(1).every((a) => a.startsWith('-') && a !== '-' ? true : a === '-');
  const input = readsStdin ? (await collect(ch)).toString('utf8') : '';
  const code = await drive(new ShellSession(ctx).run(argv, input), write, ch.signal);
  if (code !== undefined) ch.finish(outcomeMessage(ch.protocol, argv, code));
}
