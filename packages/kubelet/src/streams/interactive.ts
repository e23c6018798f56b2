// A shell reading its input, as `sh` does when exec'd or attached with stdin: line by line, each complete
// script run before the next is read. With a terminal (tty) it is busybox's interactive ash behind a line
// discipline: the prompt `/ # ` (the directory, `~` for HOME), echo, CR-LF output, backspace, ^C dropping the
// line, ^D on an empty line ending input; arrow keys and other escape sequences are ignored. Without one,
// input is read as a script and nothing is echoed. End of input ends the shell with its last status.
import { incomplete, type ShellSession } from '../shell/interpreter.ts';
import { drive, type Write } from './driver.ts';

export interface InteractiveOptions {
  tty: boolean;
  write: Write;
  signal: AbortSignal;
}

export class InteractiveShell {
  /** The shell's exit status once it is gone (exit, end of input); undefined if the session was cancelled. */
  readonly done: Promise<number | undefined>;
  private resolve!: (code: number | undefined) => void;
  private line = '';
  private pending = '';
  private readonly queue: string[] = [];
  private running = false;
  private eof = false;
  private finished = false;
  private status = 0;
  /** Inside an escape sequence (ESC [ … final byte). */
  private escape: 0 | 1 | 2 = 0;

  constructor(
    private readonly session: ShellSession,
    private readonly opts: InteractiveOptions,
  ) {
    this.done = new Promise((r) => (this.resolve = r));
    opts.signal.addEventListener('abort', () => this.finish(undefined), { once: true });
  }

  /** Shows the first prompt (a terminal only). */
  start(): void {
    this.prompt();
  }

  private out(text: string): void {
    this.opts.write('stdout', this.opts.tty ? text.replace(/\r?\n/g, '\r\n') : text);
  }

  private prompt(): void {
    if (this.opts.tty && !this.finished) this.out(this.pending ? '> ' : this.session.prompt());
  }

  /** Bytes from stdin. */
  input(data: Buffer): void {
    if (this.finished) return;
    const text = data.toString('utf8');
    if (!this.opts.tty) {
      this.line += text;
      let nl: number;
      while ((nl = this.line.indexOf('\n')) >= 0) {
        this.submit(this.line.slice(0, nl));
        this.line = this.line.slice(nl + 1);
      }
      return;
    }
    for (const ch of text) {
      if (this.escape === 1) {
        this.escape = ch === '[' || ch === 'O' ? 2 : 0;
        continue;
      }
      if (this.escape === 2) {
        if (/[@-~]/.test(ch)) this.escape = 0;
        continue;
      }
      if (ch === '\x1b') this.escape = 1;
      else if (ch === '\r' || ch === '\n') {
        this.out('\n');
        const l = this.line;
        this.line = '';
        this.submit(l);
      } else if (ch === '\x7f' || ch === '\b') {
        if (this.line) {
          this.line = this.line.slice(0, -1);
          this.out('\b \b');
        }
      } else if (ch === '\x03') {
        this.line = '';
        this.pending = '';
        this.out('^C\n');
        if (!this.running) this.prompt();
      } else if (ch === '\x04') {
        if (this.line === '' && this.pending === '') this.end();
      } else if (ch >= ' ' || ch === '\t') {
        this.line += ch;
        this.out(ch);
      }
    }
  }

  /** stdin reached its end: what is left runs, then the shell exits. */
  end(): void {
    if (this.eof) return;
    this.eof = true;
    if (this.line) this.submit(this.line);
    this.line = '';
    if (this.pending) this.queue.push(this.pending);
    this.pending = '';
    void this.pump();
  }

  private submit(line: string): void {
    const script = this.pending ? `${this.pending}\n${line}` : line;
    if (incomplete(script)) {
      this.pending = script;
      this.prompt();
      return;
    }
    this.pending = '';
    this.queue.push(script);
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    while (!this.finished) {
      const script = this.queue.shift();
      if (script === undefined) break;
      if (script.trim() === '') {
        this.prompt();
        continue;
      }
      const r = await drive(this.session.source(script), (stream, text) => (this.opts.tty ? this.out(text) : this.opts.write(stream, text)), this.opts.signal);
      if (r === undefined) return;
      this.status = r.status;
      if (r.exited) return this.finish(r.status);
      if (this.queue.length === 0) this.prompt();
    }
    this.running = false;
    if (this.eof && this.queue.length === 0) this.finish(this.status);
  }

  private finish(code: number | undefined): void {
    if (this.finished) return;
    this.finished = true;
    this.resolve(code);
  }
}
