// busybox ash's `kill [-SIG | -s SIG] PID…` over the container's process table (ps.ts). What a signal does is
// the process's own handler: a server image's main process (nginx, httpd, redis…) ends on TERM, INT or QUIT
// and its container exits — so `kill 1` restarts it — while a process without handlers that is PID 1 (sleep,
// sh) ignores them, as the kernel shields a PID namespace's init from signals it does not handle.
import type { Result } from './builtins.ts';
import type { ProcessTable } from './ps.ts';

export const SIGNALS: Readonly<Record<string, number>> = { HUP: 1, INT: 2, QUIT: 3, KILL: 9, USR1: 10, USR2: 12, TERM: 15, STOP: 19, CONT: 18 };

function signalNumber(s: string): number | undefined {
  if (/^\d+$/.test(s)) return Number(s);
  return SIGNALS[s.toUpperCase().replace(/^SIG/, '')];
}

export function kill(table: ProcessTable | undefined, args: readonly string[]): Result {
  let signal = SIGNALS.TERM ?? 15;
  const rest = [...args];
  if (rest[0] === '-l') return { out: `${Object.keys(SIGNALS).join(' ')}\n`, status: 0 };
  if (rest[0] === '-s') {
    rest.shift();
    const n = signalNumber(rest.shift() ?? '');
    if (n === undefined) return { out: '', err: `sh: kill: bad signal name '${args[1] ?? ''}'\n`, status: 1 };
    signal = n;
  } else if (rest[0]?.startsWith('-') && rest[0] !== '-') {
    const n = signalNumber(rest[0].slice(1));
    if (n === undefined) return { out: '', err: `sh: kill: bad signal name '${rest[0].slice(1)}'\n`, status: 1 };
    signal = n;
    rest.shift();
  }
  if (rest.length === 0) return { out: '', err: 'kill: usage: kill [-s sigspec | -signum | -sigspec] [pid | job]... or\nkill -l [exitstatus]\n', status: 1 };
  let err = '';
  for (const a of rest) {
    const pid = /^\d+$/.test(a) ? Number(a) : NaN;
    if (Number.isNaN(pid)) err += `sh: kill: illegal number ${a}\n`;
    else if (!table?.signal(pid, signal)) err += `sh: can't kill pid ${pid}: No such process\n`;
  }
  return { out: '', ...(err ? { err } : {}), status: err ? 1 : 0 };
}
