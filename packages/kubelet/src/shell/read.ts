// The shell's standard input as a command sees it (what it has not yet read: `read` takes a line, `cat` the
// rest), and busybox ash's `read` builtin: `read [-r] [-p PROMPT] [NAME…]` reads one line, splits it at blanks
// into the names (the last takes the rest; none: REPLY), and fails at end of input.

export class Input {
  private pos = 0;

  constructor(private readonly text: string) {}

  /** Everything not read yet, which is then read. */
  takeAll(): string {
    const rest = this.text.slice(this.pos);
    this.pos = this.text.length;
    return rest;
  }

  /** The next line without its newline, and whether one ended it; undefined at end of input. */
  takeLine(): { line: string; complete: boolean } | undefined {
    if (this.pos >= this.text.length) return undefined;
    const nl = this.text.indexOf('\n', this.pos);
    const end = nl < 0 ? this.text.length : nl;
    const line = this.text.slice(this.pos, end);
    this.pos = nl < 0 ? end : end + 1;
    return { line, complete: nl >= 0 };
  }
}

export interface ReadResult {
  /** Variables to set. */
  vars: Record<string, string>;
  status: number;
  /** The -p prompt (ash writes it to stderr). */
  prompt?: string;
  err?: string;
}

export function read(args: readonly string[], input: Input): ReadResult {
  let raw = false;
  let prompt: string | undefined;
  const names: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const a = args[k] ?? '';
    if (a === '-r') raw = true;
    else if (a === '-p') prompt = args[++k] ?? '';
    else if (a.startsWith('-') && names.length === 0) return { vars: {}, status: 2, err: `sh: read: illegal option ${a}\n` };
    else names.push(a);
  }
  if (names.length === 0) names.push('REPLY');
  let got = input.takeLine();
  if (!got) return { vars: Object.fromEntries(names.map((n) => [n, ''])), status: 1, ...(prompt !== undefined ? { prompt } : {}) };
  let line = got.line;
  // Without -r a backslash-newline joins the next line, and other backslashes escape the next character.
  while (!raw && got?.complete && /(^|[^\\])(\\\\)*\\$/.test(line)) {
    got = input.takeLine();
    line = line.slice(0, -1) + (got?.line ?? '');
  }
  if (!raw) line = line.replace(/\\(.)/g, '$1');
  const vars: Record<string, string> = {};
  let rest = line.replace(/^[ \t]+/, '');
  names.forEach((n, i) => {
    if (i === names.length - 1) {
      vars[n] = rest.replace(/[ \t]+$/, '');
      return;
    }
    const m = /^([^ \t]*)[ \t]*/.exec(rest);
    vars[n] = m?.[1] ?? '';
    rest = rest.slice(m?.[0].length ?? rest.length);
  });
  return { vars, status: got?.complete === false ? 1 : 0, ...(prompt !== undefined ? { prompt } : {}) };
}
