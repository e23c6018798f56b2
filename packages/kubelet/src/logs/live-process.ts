// A container's process run live, in real time: one whose command talks to the network (a `while sleep 0.01;
// do wget -q -O- http://php-apache; done` load generator), which virtual time cannot run since each answer is
// only known once the emulated data plane gives it. Its `sleep`s really sleep, its wget/curl reach the pod's
// cluster network, what it writes goes to the container's log as it happens, and its exit is reported to the
// lifecycle (`onExit`) when it comes. It shares the kubelet's event loop, so it never holds it: it yields to
// I/O after every network exchange and every OUTPUT_BATCH writes, and makes at most one exchange per
// MIN_EXCHANGE_MS (streams/driver.ts; a loop of requests without a sleep costs the kubelet a bounded share of its CPU).
import type { ShellStep } from '../shell/interpreter.ts';
import { exchange, pause } from '../streams/driver.ts';
import type { ExitOutlook, RunningProcess } from './process.ts';
import type { LogInstance } from './store.ts';

/** Writes in a row before the process lets the event loop run. */
const OUTPUT_BATCH = 64;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class LiveProcess implements RunningProcess {
  private readonly abort = new AbortController();
  private exited: { at: number; code: number } | undefined;

  constructor(
    steps: Generator<ShellStep, number>,
    readonly log: LogInstance,
    private readonly now: () => number,
    onExit: () => void,
  ) {
    void this.run(steps).then((code) => {
      if (code === undefined || this.abort.signal.aborted) return;
      this.exited = { at: this.now(), code };
      onExit();
    });
  }

  private async run(steps: Generator<ShellStep, number>): Promise<number | undefined> {
    const signal = this.abort.signal;
    let lastExchange = -Infinity;
    let writes = 0;
    for (;;) {
      if (signal.aborted) return undefined;
      let r: IteratorResult<ShellStep, number>;
      try {
        r = steps.next();
      } catch (e) {
        // The emulation failed, not the script: the process dies as a crashed shell would.
        this.log.append(this.now(), 'stderr', `sh: ${e instanceof Error ? e.message : String(e)}\n`);
        return 2;
      }
      if (r.done) return r.value;
      const step = r.value;
      if (step.t === 'out') {
        this.log.append(this.now(), step.stream, step.text);
        if (++writes >= OUTPUT_BATCH) {
          writes = 0;
          await yieldToLoop();
        }
      } else if (step.t === 'wait') {
        lastExchange = await exchange(step.until, lastExchange, signal, this.now);
        writes = 0;
      } else {
        writes = 0;
        // Infinity: it runs on silently until stopped.
        await pause(step.ms, signal);
        if (step.ms === 0) await yieldToLoop();
      }
    }
  }

  outlook(): ExitOutlook {
    return this.exited ? { exitAt: this.exited.at, exitCode: this.exited.code } : { recheckAt: undefined };
  }

  stop(): void {
    this.abort.abort();
    this.log.finish();
  }
}
