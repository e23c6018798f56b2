// The base work queue, as client-go's util/workqueue: fair (FIFO), de-duplicated, and an item is never
// processed by two workers at once. Two sets keep that: `dirty` (needs processing) and `processing`
// (handed to a worker, not yet done). An item added while it is processing is queued again on done().

export class Queue<K = string> {
  private queue: K[] = [];
  private head = 0;
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private waiters: ((k: K | undefined) => void)[] = [];
  private shutdown = false;

  /** Marks key as needing processing. No-op if already queued; deferred to done() if being processed. */
  add(key: K): void {
    if (this.shutdown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Items waiting to be handed out (not counting those being processed). */
  len(): number {
    return this.queue.length - this.head;
  }

  /** The next item; waits when empty. Resolves undefined once the queue is shut down. */
  get(): Promise<K | undefined> {
    const k = this.take();
    if (k !== undefined || this.shutdown) return Promise.resolve(k);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends processing of key; if it was added meanwhile it is queued again. */
  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shutdown) this.push(key);
  }

  /** Stops accepting items; waiting and later get() calls resolve undefined. */
  shutDown(): void {
    if (this.shutdown) return;
    this.shutdown = true;
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w(undefined);
  }

  shuttingDown(): boolean {
    return this.shutdown;
  }

  private push(key: K): void {
    const w = this.waiters.shift();
    if (w) {
      this.dirty.delete(key);
      this.processing.add(key);
      w(key);
      return;
    }
    this.queue.push(key);
  }

  private take(): K | undefined {
    if (this.head >= this.queue.length) return undefined;
    const k = this.queue[this.head] as K;
    this.head++;
    // Compact now and then so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.dirty.delete(k);
    this.processing.add(k);
    return k;
  }
}
