// EventRecorder (client-go's tools/record): core/v1 Events about an object, written asynchronously.
// - Events go to the object's namespace, or "default" for cluster-scoped objects.
// - Each Event passes client-go's EventCorrelator first (events-correlator.ts): repeats are counted on the
//   existing Event (PATCH of count, lastTimestamp, message), similar events with many messages are combined,
//   and a per-object spam filter (burst 25, then one per 5 minutes) keeps a hot loop from flooding.
// - Names are `<object>.<hex UnixNano>` with random sub-millisecond nanoseconds, so recorders in different
//   processes never pick the same name for events about one object; should a name still be taken, the
//   Event is created once more under a fresh one rather than lost.
// - event() never throws and never blocks; flush() waits until everything queued has been written.
import { formatTime, R, type CoreEvent, type KubeObject, type ObjectReference } from '@kemu/api';
import { realClock, silentLogger, type Clock, type Logger } from '@kemu/base';
import { isAlreadyExists, isNotFound } from './errors.ts';
import { EventCorrelator, eventName, type CorrelatedEvent } from './events-correlator.ts';
import type { RestClient } from './rest.ts';
import { FencedWriteError } from './write-fence.ts';

export interface EventSourceInfo {
  component: string;
  host?: string;
}

export interface EventRecorderOptions {
  clock?: Clock;
  logger?: Logger;
  /** How many distinct events to remember for aggregation (default 4096, LRU). */
  cacheSize?: number;
  /** Spam filter per source+object: burst and refill interval (defaults 25 and 300 s); burst 0 disables. */
  spamBurst?: number;
  spamRefillMs?: number;
}

/**
 * Per-event extras: `fieldPath` names a part of the object (the kubelet's `spec.containers{web}`); `host`
 * overrides the source host for this event (one recorder serving many emulated nodes).
 */
export interface EventOptions {
  fieldPath?: string;
  host?: string;
}

export function objectReference(obj: KubeObject): ObjectReference {
  const ref: ObjectReference = { kind: obj.kind, apiVersion: obj.apiVersion, name: obj.metadata.name };
  if (obj.metadata.namespace) ref.namespace = obj.metadata.namespace;
  if (obj.metadata.uid) ref.uid = obj.metadata.uid;
  if (obj.metadata.resourceVersion) ref.resourceVersion = obj.metadata.resourceVersion;
  return ref;
}

export class EventRecorder {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly correlator: EventCorrelator;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: RestClient,
    readonly source: EventSourceInfo,
    opts: EventRecorderOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? silentLogger();
    this.correlator = new EventCorrelator({ clock: this.clock, cacheSize: opts.cacheSize, spamBurst: opts.spamBurst, spamRefillMs: opts.spamRefillMs });
  }

  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, opts?: EventOptions): void {
    try {
      const ref = objectReference(obj);
      if (opts?.fieldPath) ref.fieldPath = opts.fieldPath;
      const source = opts?.host !== undefined ? { component: this.source.component, host: opts.host } : this.source;
      const c = this.correlator.correlate(this.makeEvent(ref, source, obj.metadata.namespace || 'default', type, reason, message));
      if (c.skip) {
        this.log.debug({ reason, object: ref.name }, 'event dropped by the spam filter');
        return;
      }
      this.chain = this.chain
        .then(() => this.write(c))
        .catch((e: unknown) => this.log.warn({ err: String(e), reason, object: ref.name }, 'could not write event'));
    } catch (e) {
      this.log.warn({ err: String(e) }, 'could not record event');
    }
  }

  /** Resolves once every event queued so far has been written (or given up on). */
  flush(): Promise<void> {
    return this.chain;
  }

  private makeEvent(ref: ObjectReference, source: EventSourceInfo, namespace: string, type: string, reason: string, message: string): CoreEvent {
    const now = this.clock.now();
    const ts = formatTime(now);
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: eventName(ref.name, now), namespace },
      involvedObject: ref,
      reason,
      message,
      type: type === 'Warning' ? 'Warning' : 'Normal',
      source: source.host ? { component: source.component, host: source.host } : { component: source.component },
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
      eventTime: null,
      reportingComponent: source.component,
      reportingInstance: source.host ?? '',
    };
  }

  /** client-go's recordToSink: PATCH a repeat; create a new Event, or again when the repeated one is gone. */
  private async write(c: CorrelatedEvent): Promise<void> {
    const ev = c.event;
    const namespace = ev.metadata.namespace ?? 'default';
    if (c.patch) {
      try {
        await this.client.patch(R.events, namespace, ev.metadata.name ?? '', c.patch, 'merge');
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
        // Deleted (or expired) since: created again under its name, with the count it has reached.
      }
    }
    try {
      await this.createWithRetry(namespace, ev);
    } catch (e) {
      if (!isAlreadyExists(e) || c.patch) throw e;
      // The name is someone else's (another recorder's Event about the same object): a fresh name, not a lost Event.
      const oldName = ev.metadata.name ?? '';
      const renamed: CoreEvent = { ...ev, metadata: { ...ev.metadata, name: eventName(ev.involvedObject.name, this.clock.now()) } };
      await this.createWithRetry(namespace, renamed);
      this.correlator.rename(c.key, oldName, renamed.metadata.name ?? '');
    }
  }

  private async createWithRetry(namespace: string, ev: CoreEvent): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.client.create(R.events, namespace, ev);
        return;
      } catch (e) {
        // A retried create that finds its name taken: the earlier attempt landed after all.
        if (attempt > 0 && isAlreadyExists(e)) return;
        const code = (e as { code?: unknown }).code;
        // Refusals (4xx: namespace gone, forbidden, invalid) are final, and so is a leader's fence once its term
        // is over (it will never admit this write); transient trouble is retried briefly.
        if ((typeof code === 'number' && code < 500) || e instanceof FencedWriteError || attempt >= 2) throw e;
        await this.clock.sleep(500 * (attempt + 1));
      }
    }
  }
}
