// The sample-controller recipe, written once for every controller: event handlers only enqueue keys; run()
// waits for the caches to sync and starts N workers; each key is get → sync → forget, or addRateLimited on
// error → done. A sync that hits NotFound is finished (the object is gone, nothing left to do).
import { RateLimitingQueue, isConflict, isNotFound, metaKey, type DeletedFinalStateUnknown, type RateLimiter, type SharedInformer } from '@kemu/client';
import type { KubeObject } from '@kemu/api';
import type { ControllerContext } from '../controller.ts';
import { workqueueMetrics } from '../metrics.ts';

export interface KeyedWorkerOptions {
  name: string;
  workers: number;
  /** Reconciles one key; throwing requeues it with back-off. */
  sync(key: string): Promise<void>;
  /** The queue's back-off (default: client-go's DefaultControllerRateLimiter). */
  rateLimiter?: RateLimiter<string>;
}

/** A sync failure that is expected and retried with back-off, logged at debug level only (Kubernetes' ignorableError). */
export class IgnorableError extends Error {}

/** A rate-limited work queue of keys plus the worker loop that drains it. */
export class KeyedWorker {
  readonly queue: RateLimitingQueue<string>;
  private readonly synced: Pick<SharedInformer<KubeObject>, 'hasSynced'>[] = [];

  constructor(
    private readonly ctx: ControllerContext,
    private readonly opts: KeyedWorkerOptions,
  ) {
    this.queue = new RateLimitingQueue<string>({ clock: ctx.clock, name: opts.name, ...(opts.rateLimiter ? { rateLimiter: opts.rateLimiter } : {}) });
  }

  /** Informers whose caches must be synced before the first worker starts. */
  waitFor(...informers: Pick<SharedInformer<KubeObject>, 'hasSynced'>[]): this {
    this.synced.push(...informers);
    return this;
  }

  enqueue(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): void {
    this.add(metaKey(obj));
  }

  add(key: string): void {
    this.queue.add(key);
    workqueueMetrics.adds.inc({ name: this.opts.name });
    workqueueMetrics.depth.set({ name: this.opts.name }, this.queue.len());
  }

  addAfter(key: string, ms: number): void {
    this.queue.addAfter(key, ms);
  }

  /** Runs until ctx.signal aborts; returns after the workers have finished their current items. */
  async run(signal: AbortSignal = this.ctx.signal): Promise<void> {
    const log = this.ctx.logger;
    const stop = () => this.queue.shutDown();
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    log.info({ queue: this.opts.name }, `Starting ${this.opts.name}`);
    try {
      const ok = await this.waitForSync(signal);
      if (!ok) return;
      const workers = Array.from({ length: Math.max(1, this.opts.workers) }, () => this.worker(signal));
      await Promise.all(workers);
    } finally {
      signal.removeEventListener('abort', stop);
      this.queue.shutDown();
      log.info({ queue: this.opts.name }, `Shutting down ${this.opts.name}`);
    }
  }

  private async waitForSync(signal: AbortSignal): Promise<boolean> {
    const synced = await this.ctx.informers.waitForCacheSync(signal);
    if (!synced || signal.aborted) return false;
    return this.synced.every((i) => i.hasSynced());
  }

  private async worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      // Leadership may have ended while this key waited: do no more work at all.
      if (signal.aborted) {
        this.queue.done(key);
        return;
      }
      const name = this.opts.name;
      workqueueMetrics.depth.set({ name }, this.queue.len());
      const stopTimer = workqueueMetrics.workDuration.startTimer({ name });
      try {
        await this.opts.sync(key);
        this.queue.forget(key);
      } catch (e) {
        if (isNotFound(e)) {
          this.queue.forget(key);
        } else if (!signal.aborted) {
          // Conflicts are the normal price of optimistic concurrency; anything else is worth seeing.
          const fields = { queue: this.opts.name, key, err: String(e) };
          if (isConflict(e)) this.ctx.logger.debug(fields, 'sync conflict, requeuing');
          else if (e instanceof IgnorableError) this.ctx.logger.debug(fields, 'sync not done yet, requeuing');
          else this.ctx.logger.warn(fields, 'sync failed, requeuing');
          this.queue.addRateLimited(key);
          workqueueMetrics.retries.inc({ name });
        }
      } finally {
        stopTimer();
        this.queue.done(key);
      }
    }
  }
}
