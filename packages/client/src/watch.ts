// The watch wire format: one JSON `{"type","object"}` per line over a chunked body. ERROR events carry a
// Status and end the stream as a StatusError (410 → Expired, which a reflector answers with a re-list);
// BOOKMARK events are yielded so callers can advance their resourceVersion.
import type { KubeObject, WatchEvent, WatchEventType } from '@kemu/api';
import { statusErrorFromStatus } from './errors.ts';

const TYPES: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** The stream broke the framing (not JSON, or not a watch event). */
export class WatchDecodeError extends Error {
  constructor(message: string) {
    super(`unable to decode an event from the watch stream: ${message}`);
    this.name = 'WatchDecodeError';
  }
}

/** No byte arrived within the idle deadline: the connection is presumed dead. */
export class WatchIdleTimeoutError extends Error {
  constructor(readonly idleMs: number) {
    super(`watch stream idle for more than ${idleMs}ms, presumed dead`);
    this.name = 'WatchIdleTimeoutError';
  }
}

/** Narrows one decoded line to a watch event; ERROR events throw their Status as a StatusError. */
export function parseWatchLine<T extends KubeObject>(line: string): WatchEvent<T> {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    throw new WatchDecodeError(String((e as Error).message));
  }
  if (typeof v !== 'object' || v === null) throw new WatchDecodeError('event is not an object');
  const { type, object } = v as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !TYPES.has(type)) throw new WatchDecodeError(`unknown event type ${JSON.stringify(type)}`);
  if (typeof object !== 'object' || object === null) throw new WatchDecodeError('event has no object');
  if (type === 'ERROR') {
    const code = (object as { code?: unknown }).code;
    throw statusErrorFromStatus(object, typeof code === 'number' ? code : 500);
  }
  const meta = (object as { metadata?: unknown }).metadata;
  if (typeof meta !== 'object' || meta === null) throw new WatchDecodeError('event object has no metadata');
  return { type: type as WatchEventType, object: object as T };
}

/** Splits a byte stream into events. Ends when the body ends; a trailing partial line is an error. */
export async function* decodeWatchStream<T extends KubeObject>(
  body: AsyncIterable<Uint8Array | string>,
  onBytes?: () => void,
): AsyncGenerator<WatchEvent<T>> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body) {
    onBytes?.();
    buf += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line !== '') yield parseWatchLine<T>(line);
    }
  }
  buf += decoder.decode();
  if (buf.trim() !== '') yield parseWatchLine<T>(buf.trim());
}

/**
 * An idle deadline: `touch()` on every byte; when nothing arrives for idleMs the signal aborts with a
 * WatchIdleTimeoutError. Uses real timers: it guards real sockets.
 */
export class IdleDeadline {
  private readonly ctrl = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  readonly signal: AbortSignal = this.ctrl.signal;

  constructor(private readonly idleMs: number) {
    if (idleMs > 0) this.touch();
  }

  touch(): void {
    if (this.idleMs <= 0 || this.ctrl.signal.aborted) return;
    if (this.timer) this.timer.refresh();
    else {
      this.timer = setTimeout(() => this.ctrl.abort(new WatchIdleTimeoutError(this.idleMs)), this.idleMs);
      this.timer.unref();
    }
  }

  get expired(): boolean {
    return this.ctrl.signal.aborted;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}
