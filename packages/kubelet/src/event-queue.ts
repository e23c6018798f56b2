// A bounded queue in front of an EventRecorder, as client-go's event broadcaster has (a channel of 1000 that
// drops when full): when a thousand nodes start pods faster than the apiserver takes Events, the backlog
// stays bounded instead of growing without limit in memory. The recorder is fed a batch at a time.
import type { KubeObject } from '@kemu/api';
import type { EventOptions, EventRecorder } from '@kemu/client';
import type { EventSink, EventType } from './events.ts';

type Queued = [KubeObject, EventType, string, string, EventOptions | undefined];

export class EventQueue implements EventSink {
  private queue: Queued[] = [];
  private pumping = false;
  /** Events dropped because the queue was full. */
  dropped = 0;

  constructor(
    private readonly recorder: Pick<EventRecorder, 'event' | 'flush'>,
    private readonly max = 1000,
    private readonly batch = 32,
  ) {}

  event(obj: KubeObject, type: EventType, reason: string, message: string, opts?: EventOptions): void {
    if (this.queue.length >= this.max) {
      this.dropped++;
      return;
    }
    this.queue.push([obj, type, reason, message, opts]);
    if (!this.pumping) void this.pump();
  }

  get length(): number {
    return this.queue.length;
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.batch);
        for (const [obj, type, reason, message, opts] of batch) this.recorder.event(obj, type, reason, message, opts);
        await this.recorder.flush();
      }
    } finally {
      this.pumping = false;
    }
  }
}
