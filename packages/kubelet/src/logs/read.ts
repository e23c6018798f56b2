// Reading a container log as the kubelet does: PodLogOptions decoded from the query (the legacy `tail`
// parameter included) and validated (ValidatePodLogOptions), then kuberuntime's ReadLogs: the last tailLines
// records, those not before since (sinceSeconds from now, or sinceTime if later), each prefixed with its
// RFC3339Nano timestamp when asked, cut at limitBytes.
import type { LogRecord } from './store.ts';

export interface LogOptions {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  /** ms since the epoch. */
  sinceTime?: number;
  stream?: string;
}

/** A query the kubelet refuses: 400 when it does not decode, 422 when invalid (the kubelet's JSON-ish bodies). */
export class LogQueryError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const DECODE = () => new LogQueryError(400, '{"message": "Unable to decode query."}');
const INVALID = () => new LogQueryError(422, '{"message": "Invalid request."}');

function bool(v: string | null): boolean {
  // Kubernetes' query conversion: "", "0" and "false" (any case) are false, anything else true.
  return v !== null && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

function int(v: string | null): number | undefined {
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw DECODE();
  return Number(v);
}

/** Go's time.Parse(time.RFC3339, …). */
function rfc3339(v: string | null): number | undefined {
  if (v === null || v === '') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(v);
  const ms = m ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms)) throw DECODE();
  return ms;
}

export function parseLogOptions(query: URLSearchParams): LogOptions {
  const q = new URLSearchParams(query);
  const tail = q.get('tail');
  if (tail) {
    if (tail === 'all') q.delete('tailLines');
    else q.set('tailLines', tail);
  }
  const opts: LogOptions = { follow: bool(q.get('follow')), previous: bool(q.get('previous')), timestamps: bool(q.get('timestamps')) };
  const tailLines = int(q.get('tailLines'));
  const limitBytes = int(q.get('limitBytes'));
  const sinceSeconds = int(q.get('sinceSeconds'));
  const sinceTime = rfc3339(q.get('sinceTime'));
  if (tailLines !== undefined) opts.tailLines = tailLines;
  if (limitBytes !== undefined) opts.limitBytes = limitBytes;
  if (sinceSeconds !== undefined) opts.sinceSeconds = sinceSeconds;
  if (sinceTime !== undefined) opts.sinceTime = sinceTime;
  const stream = q.get('stream');
  if (stream !== null) opts.stream = stream;
  if (tailLines !== undefined && tailLines < 0) throw INVALID();
  if (limitBytes !== undefined && limitBytes < 1) throw INVALID();
  if (sinceSeconds !== undefined && sinceTime !== undefined) throw INVALID();
  if (sinceSeconds !== undefined && sinceSeconds < 1) throw INVALID();
  return opts;
}

/** The CRI's timestamp: RFC3339 with nine fractional digits, UTC. */
export function logTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 23)}000000Z`;
}

/** The earliest timestamp a read shows (NewLogOptions): now − sinceSeconds, or sinceTime when later. */
export function sinceOf(opts: LogOptions, now: number): number | undefined {
  let since = opts.sinceSeconds !== undefined ? now - opts.sinceSeconds * 1000 : undefined;
  if (opts.sinceTime !== undefined && (since === undefined || opts.sinceTime > since)) since = opts.sinceTime;
  return since;
}

/** Writes records as ReadLogs does, within a byte budget shared across calls (follow). */
export class LogWriter {
  private remain: number;

  constructor(
    private readonly opts: LogOptions,
    private readonly since: number | undefined,
  ) {
    this.remain = opts.limitBytes ?? Infinity;
  }

  /** The budget is spent: the read ends. */
  get exhausted(): boolean {
    return this.remain <= 0;
  }

  format(records: readonly LogRecord[]): string {
    let out = '';
    for (const r of records) {
      if (this.remain <= 0) break;
      if (this.since !== undefined && r.ts < this.since) continue;
      let line = this.opts.timestamps ? `${logTimestamp(r.ts)} ${r.text}` : r.text;
      const bytes = Buffer.byteLength(line);
      if (bytes > this.remain) line = Buffer.from(line).subarray(0, this.remain).toString();
      this.remain -= Math.min(bytes, this.remain);
      out += line;
    }
    return out;
  }
}

/** The records a read starts with: the last tailLines of those kept (all when unset). */
export function tailOf(records: readonly LogRecord[], tailLines: number | undefined): readonly LogRecord[] {
  if (tailLines === undefined) return records;
  return tailLines === 0 ? [] : records.slice(-tailLines);
}
