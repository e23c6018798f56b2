// A running container's emulated process: pulls its output (shell/interpreter.ts' events) as time passes and
// writes it to the container's log instance. It also looks ahead, without writing, to tell the lifecycle when
// the process exits: up to LOOKAHEAD_MS of virtual time or LOOKAHEAD_EVENTS events at a time, so an endless
// loop costs one look per minute, not one per line.
import type { ProcessEvent } from '../shell/interpreter.ts';
import type { LogInstance } from './store.ts';

export const LOOKAHEAD_MS = 60_000;
export const LOOKAHEAD_EVENTS = 1024;

/** What the lifecycle learns from a look ahead. */
export type ExitOutlook =
  /** It exits at `at` (wall-clock ms) with `exitCode`. */
  | { exitAt: number; exitCode: number }
  /** Not within the look ahead: look again at `recheckAt` (undefined: it runs until stopped). */
  | { recheckAt: number | undefined };

/** A running container's process as the lifecycle sees it: in virtual time (below) or live (live-process.ts). */
export interface RunningProcess {
  readonly log: LogInstance;
  /** When it exits, if known. */
  outlook(now: number): ExitOutlook;
  /** It is gone at `at`: no more output. */
  stop(at: number): void;
}

export class ContainerProcess implements RunningProcess {
  private readonly ahead: ProcessEvent[] = [];
  private drained = false;

  constructor(
    private events: Iterator<ProcessEvent> | undefined,
    readonly startedAt: number,
    readonly log: LogInstance,
    /** A plain init container the shell does not know completes at once (command.ts' rule): "forever" exits 0. */
    private readonly foreverExits = false,
  ) {
    log.pump = (now) => {
      this.flush(now);
      const next = this.peek();
      return next && next.kind === 'output' ? this.startedAt + next.atMs : undefined;
    };
  }

  private pull(): ProcessEvent | undefined {
    if (this.drained || !this.events) return undefined;
    const r = this.events.next();
    if (r.done) {
      this.drain();
      return undefined;
    }
    let e = r.value;
    if (e.kind === 'forever' && this.foreverExits) e = { kind: 'exit', atMs: e.atMs, exitCode: 0 };
    if (e.kind !== 'output') this.drain();
    this.ahead.push(e);
    return e;
  }

  /** Nothing more comes: the interpreter's state is let go (a server's container keeps none). */
  private drain(): void {
    this.drained = true;
    this.events = undefined;
  }

  private peek(): ProcessEvent | undefined {
    return this.ahead[0] ?? this.pull();
  }

  /** Writes every output due by `now` (wall-clock ms). */
  flush(now: number): void {
    if (this.log.finished) return;
    for (let e = this.peek(); e && e.kind === 'output' && this.startedAt + e.atMs <= now; e = this.peek()) {
      this.ahead.shift();
      this.log.append(this.startedAt + e.atMs, e.stream, e.text);
    }
  }

  /** When the process exits, if that is known within the look ahead from `now`. */
  outlook(now: number): ExitOutlook {
    this.flush(now);
    for (const e of this.ahead) if (e.kind !== 'output') return this.end(e);
    const horizon = now - this.startedAt + LOOKAHEAD_MS;
    let last = this.ahead[this.ahead.length - 1];
    while (this.ahead.length < LOOKAHEAD_EVENTS && (!last || last.atMs <= horizon)) {
      const e = this.pull();
      if (!e) break;
      if (e.kind !== 'output') return this.end(e);
      last = e;
    }
    if (this.drained && this.ahead.length === 0) return { recheckAt: undefined };
    return { recheckAt: this.startedAt + Math.min(last?.atMs ?? horizon, horizon) };
  }

  private end(e: Exclude<ProcessEvent, { kind: 'output' }>): ExitOutlook {
    return e.kind === 'exit' ? { exitAt: this.startedAt + e.atMs, exitCode: e.exitCode } : { recheckAt: undefined };
  }

  /** The process is gone at `at` (it exited, or was killed): its output until then is written, then no more. */
  stop(at: number): void {
    this.flush(at);
    this.ahead.length = 0;
    this.drain();
    this.log.finish();
  }
}
