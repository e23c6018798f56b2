// One remotecommand session over an accepted WebSocket: writes to the stdout/stderr/error channels, reads
// stdin, resize and (v5) close messages. stdin ends with v5's close signal or when the socket closes.
import type { WebSocket } from 'ws';
import { CLOSE, ERROR, RESIZE, STDERR, STDIN, STDOUT, decodeFrame, encodeFrame, parseResize, type Protocol, type TerminalSize } from './protocol.ts';

export interface ChannelHandlers {
  stdin?(data: Buffer): void;
  stdinEnd?(): void;
  resize?(size: TerminalSize): void;
}

export class Channels {
  private handlers: ChannelHandlers = {};
  private stdinEnded = false;
  /** The last terminal size the client sent: replayed to a resize handler registered after it came. */
  private size: TerminalSize | undefined;
  private readonly abort = new AbortController();
  /** Aborted when the client goes away or the session is finished. */
  readonly signal = this.abort.signal;

  constructor(
    private readonly ws: WebSocket,
    readonly protocol: Protocol,
    /** tty: stderr goes to stdout (one terminal), as the runtime's pty does. */
    readonly tty: boolean,
  ) {
    ws.on('message', (data, isBinary) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      const f = decodeFrame(protocol, buf, isBinary);
      if (!f) return;
      if (f.channel === STDIN) {
        if (f.data.length > 0) this.handlers.stdin?.(f.data);
      } else if (f.channel === RESIZE) {
        const size = parseResize(f.data);
        if (size) {
          this.size = size;
          this.handlers.resize?.(size);
        }
      } else if (f.channel === CLOSE && protocol.version >= 5 && f.data[0] === STDIN) this.endStdin();
    });
    ws.on('close', () => {
      // Aborted first: a stdin ending with the socket (not by a close message) is a detach.
      this.abort.abort();
      this.endStdin();
    });
    ws.on('error', () => ws.terminate());
  }

  on(h: ChannelHandlers): void {
    this.handlers = h;
    if (this.size) h.resize?.(this.size);
  }

  private endStdin(): void {
    if (this.stdinEnded) return;
    this.stdinEnded = true;
    this.handlers.stdinEnd?.();
  }

  write(stream: 'stdout' | 'stderr', data: string | Buffer): void {
    if (this.signal.aborted || data.length === 0) return;
    this.ws.send(encodeFrame(this.protocol, stream === 'stderr' && !this.tty ? STDERR : STDOUT, data));
  }

  /** Sends the outcome on the error channel (if any) and closes the socket normally. */
  finish(errorMessage: string | undefined): void {
    if (this.signal.aborted) return;
    if (errorMessage !== undefined) this.ws.send(encodeFrame(this.protocol, ERROR, errorMessage));
    this.abort.abort();
    this.ws.close(1000);
  }
}
