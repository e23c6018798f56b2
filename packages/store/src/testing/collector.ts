// A watch handler for tests: collects events and lets a test wait for a condition with a deadline.
import type { Backend, Watch, WatchEvent } from '../backend.ts';

export class EventCollector {
  readonly events: WatchEvent[] = [];
  error: Error | undefined;
  private waiters: Array<() => void> = [];
  watch: Watch | undefined;

  static start(backend: Backend, prefix: string, fromRevision: number): EventCollector {
    const c = new EventCollector();
    c.watch = backend.watch(prefix, fromRevision, {
      onEvents: (evs) => {
        c.events.push(...evs);
        c.wake();
      },
      onError: (err) => {
        c.error = err;
        c.wake();
      },
    });
    return c;
  }

  close(): void {
    this.watch?.close();
  }

  /** Wait until pred holds (checked after every delivery), or fail after timeoutMs. */
  async until(pred: (c: EventCollector) => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this)) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`timed out waiting for ${what}: have ${this.events.length} events, error=${String(this.error)}`);
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 50));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  count(n: number, timeoutMs = 5000): Promise<void> {
    return this.until((c) => c.events.length >= n, timeoutMs, `${n} events`);
  }

  failed(timeoutMs = 5000): Promise<void> {
    return this.until((c) => c.error !== undefined, timeoutMs, 'watch error');
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
