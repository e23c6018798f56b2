// The launcher's output while a long step runs: a step line with the elapsed time, and one live status line
// that is rewritten in place on a terminal (elsewhere printed when it changes, and every 20 s while it does not).
export class Progress {
  private readonly t0 = Date.now();
  private live = '';
  private lastPrinted = '';
  private lastPrintedAt = 0;

  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {}

  elapsed(from = this.t0): string {
    const s = Math.round((Date.now() - from) / 1000);
    return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
  }

  /** A line that stays. */
  say(line: string): void {
    this.clear();
    this.out.write(`[kemu] ${line}\n`);
  }

  /** The live status line. */
  status(line: string): void {
    const text = `[kemu]   ${line}`;
    if (this.out.isTTY) {
      const width = (this.out.columns || 120) - 1;
      this.out.write(`\r\x1b[K${text.slice(0, width)}`);
      this.live = text;
      return;
    }
    const key = line.replace(/\d+m?\d*s\b/g, '');
    if (key === this.lastPrinted && Date.now() - this.lastPrintedAt < 20_000) return;
    this.lastPrinted = key;
    this.lastPrintedAt = Date.now();
    this.out.write(`${text}\n`);
  }

  clear(): void {
    if (this.live && this.out.isTTY) this.out.write('\r\x1b[K');
    this.live = '';
  }
}
