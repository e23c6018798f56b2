// The audit log backend: one line per event, appended in batches (one write per event-loop turn, so the
// request path only queues a string), rotated like lumberjack (which Kubernetes uses): when a line would
// take the file past --audit-log-maxsize MB (0 means lumberjack's 100 MB) the file is renamed to
// <name>-<UTC 2006-01-02T15-04-05.000>.<ext> (gzipped when compress is on), then backups beyond
// --audit-log-maxbackup (0: keep all) and older than --audit-log-maxage days (0: no limit) are deleted.
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export interface LineSink {
  write(line: string): void;
  /** Writes what is queued and releases the file. */
  close(): void;
}

export interface RotationOptions {
  /** MB before rotation; 0 means 100 (lumberjack's default). */
  maxSizeMB: number;
  /** Backups kept; 0 keeps all. */
  maxBackups: number;
  /** Days a backup is kept; 0 keeps them regardless of age. */
  maxAgeDays: number;
  compress: boolean;
  /** Epoch ms; injected so tests name backups deterministically. */
  now?: () => number;
}

const MB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/** lumberjack's backupTimeFormat, in UTC. */
export function backupName(file: string, epochMs: number): string {
  const ext = path.extname(file);
  const base = file.slice(0, file.length - ext.length);
  const t = new Date(epochMs).toISOString().slice(0, 23).replace(/:/g, '-');
  return `${base}-${t}${ext}`;
}

function parseBackupTime(name: string, prefix: string, ext: string): number | undefined {
  const n = name.endsWith('.gz') ? name.slice(0, -3) : name;
  if (!n.startsWith(prefix) || !n.endsWith(ext)) return undefined;
  const t = n.slice(prefix.length, n.length - ext.length);
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(t);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

abstract class BatchingSink implements LineSink {
  private pending: string[] = [];
  private scheduled = false;
  private closed = false;
  /** A failed write is reported here and the events dropped; the apiserver keeps serving (as Kubernetes does). */
  onError: (err: unknown) => void = (err) => process.stderr.write(`audit log write failed: ${err instanceof Error ? err.message : String(err)}\n`);

  write(line: string): void {
    // Watches that end during shutdown report after the sink is closed: nothing left to write to.
    if (this.closed) return;
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    const lines = this.pending;
    if (lines.length === 0) return;
    this.pending = [];
    try {
      this.writeLines(lines);
    } catch (e) {
      this.onError(e);
    }
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.release();
  }

  protected abstract writeLines(lines: string[]): void;
  protected abstract release(): void;
}

export class StdoutSink extends BatchingSink {
  protected writeLines(lines: string[]): void {
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  protected release(): void {}
}

export class RotatingFileSink extends BatchingSink {
  private fd: number;
  private size: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(
    readonly file: string,
    private readonly o: RotationOptions,
  ) {
    super();
    this.max = (o.maxSizeMB > 0 ? o.maxSizeMB : 100) * MB;
    this.now = o.now ?? Date.now;
    // Kubernetes' ensureLogFile: the directory 0700, the file 0600.
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    this.fd = openSync(file, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  protected writeLines(lines: string[]): void {
    let chunk: string[] = [];
    let chunkBytes = 0;
    for (const line of lines) {
      const n = Buffer.byteLength(line) + 1;
      if (this.size + chunkBytes + n > this.max && this.size + chunkBytes > 0) {
        this.append(chunk, chunkBytes);
        chunk = [];
        chunkBytes = 0;
        this.rotate();
      }
      chunk.push(line);
      chunkBytes += n;
    }
    this.append(chunk, chunkBytes);
  }

  private append(lines: string[], bytes: number): void {
    if (lines.length === 0) return;
    writeSync(this.fd, `${lines.join('\n')}\n`);
    this.size += bytes;
  }

  private rotate(): void {
    closeSync(this.fd);
    const backup = backupName(this.file, this.now());
    renameSync(this.file, backup);
    this.fd = openSync(this.file, 'a', 0o600);
    this.size = 0;
    if (this.o.compress) {
      writeFileSync(`${backup}.gz`, gzipSync(readFileSync(backup)), { mode: 0o600 });
      rmSync(backup, { force: true });
    }
    this.removeOld();
  }

  private removeOld(): void {
    const dir = path.dirname(this.file);
    const ext = path.extname(this.file);
    const prefix = `${path.basename(this.file, ext)}-`;
    const backups = readdirSync(dir)
      .map((name) => ({ name, t: parseBackupTime(name, prefix, ext) }))
      .filter((b): b is { name: string; t: number } => b.t !== undefined)
      .sort((a, b) => b.t - a.t);
    const cutoff = this.o.maxAgeDays > 0 ? this.now() - this.o.maxAgeDays * DAY_MS : -Infinity;
    backups.forEach((b, i) => {
      if ((this.o.maxBackups > 0 && i >= this.o.maxBackups) || b.t < cutoff) rmSync(path.join(dir, b.name), { force: true });
    });
  }

  protected release(): void {
    closeSync(this.fd);
  }
}
