// Container logs as the kubelet keeps them through the CRI: one log per container instance (container ID),
// records of `<time> <stream> <P|F> <text>`, bounded by --container-log-max-size (the oldest records are dropped,
// as a rotation would drop the oldest file). A container keeps its current and its previous instance — what
// `kubectl logs` and `kubectl logs --previous` read. Records are written lazily: a reader (or the lifecycle)
// pumps the emulated process up to now first, so nothing is produced for logs nobody looks at.

export type LogStream = 'stdout' | 'stderr';

export interface LogRecord {
  /** Position in the instance's log since it started (dropped records keep theirs). */
  seq: number;
  /** Wall-clock ms when the process wrote it. */
  ts: number;
  stream: LogStream;
  /** The text, with its newline when the line is complete (F); without when partial (P). */
  text: string;
}

/** Bytes a record takes in a CRI log file: "2026-12-03T16:00:00.123456789Z stdout F " + text + "\n". */
export function recordBytes(r: Pick<LogRecord, 'stream' | 'text'>): number {
  return 30 + 1 + r.stream.length + 3 + Buffer.byteLength(r.text) + (r.text.endsWith('\n') ? 0 : 1);
}

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

export class LogInstance {
  readonly records: LogRecord[] = [];
  private bytes = 0;
  private nextSeq = 0;
  private head = 0;
  finished = false;
  private readonly waiters = new Set<() => void>();
  /** Writes the process' output due by `now`; returns when the next output is due (undefined: none known). */
  pump: (now: number) => number | undefined = () => undefined;

  constructor(
    readonly containerID: string,
    private readonly maxBytes: number = DEFAULT_MAX_BYTES,
  ) {}

  /** Appends what a process wrote at `ts`: one record per line, a trailing partial line as a P record. */
  append(ts: number, stream: LogStream, text: string): void {
    if (this.finished || !text) return;
    let start = 0;
    while (start < text.length) {
      const nl = text.indexOf('\n', start);
      const end = nl < 0 ? text.length : nl + 1;
      const rec: LogRecord = { seq: this.nextSeq++, ts, stream, text: text.slice(start, end) };
      this.records.push(rec);
      this.bytes += recordBytes(rec);
      start = end;
    }
    while (this.bytes > this.maxBytes && this.head < this.records.length) {
      this.bytes -= recordBytes(this.records[this.head] as LogRecord);
      this.head++;
    }
    // Compact now and then rather than shifting on every drop.
    if (this.head > 1024 && this.head * 2 > this.records.length) {
      this.records.splice(0, this.head);
      this.head = 0;
    }
    this.wake();
  }

  /** The process is gone: nothing more is written. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.wake();
  }

  /** The records kept, oldest first. */
  kept(): LogRecord[] {
    return this.records.slice(this.head);
  }

  /** Records with seq ≥ `seq` that are still kept. */
  since(seq: number): LogRecord[] {
    const first = this.records[this.head];
    if (!first) return [];
    return this.records.slice(this.head + Math.max(0, seq - first.seq));
  }

  /** The seq the next record will get. */
  get end(): number {
    return this.nextSeq;
  }

  /** Resolves on the next append or finish (or `ms`, whichever is first). */
  changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.waiters.add(done);
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

/** The logs of one container: its instances, newest last, at most the current and the previous one. */
export class ContainerLogs {
  private readonly instances: LogInstance[] = [];

  constructor(private readonly maxBytes: number = DEFAULT_MAX_BYTES) {}

  /** A new instance started (the old current one becomes previous; the one before goes away). */
  start(containerID: string): LogInstance {
    const inst = new LogInstance(containerID, this.maxBytes);
    this.instances.push(inst);
    while (this.instances.length > 2) this.instances.shift()?.finish();
    return inst;
  }

  get(containerID: string): LogInstance | undefined {
    return this.instances.find((i) => i.containerID === containerID);
  }
}
