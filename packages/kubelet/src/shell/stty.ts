// busybox `stty` for an emulated shell: `size` prints the terminal's rows and columns (what the client last
// sent on the resize channel), `rows N`/`cols N` change them, other settings (raw, -echo, …) are accepted
// silently. Without a terminal (exec without -t) it fails as busybox does on a pipe.
import type { Result } from './builtins.ts';

export interface TerminalSize {
  width: number;
  height: number;
}

export function stty(args: readonly string[], terminal: TerminalSize | undefined): Result {
  if (!terminal) return { out: '', err: 'stty: standard input: Not a tty\n', status: 1 };
  let out = '';
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === 'size') out += `${terminal.height} ${terminal.width}\n`;
    else if (a === 'rows' || a === 'cols' || a === 'columns') {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 0) return { out, err: `stty: invalid number '${args[i] ?? ''}'\n`, status: 1 };
      if (a === 'rows') terminal.height = n;
      else terminal.width = n;
    }
  }
  return { out, status: 0 };
}
