// EventRecorder (client-go's tools/record): core/v1 Events about an object, written asynchronously.
// - Events go to the object's namespace, or "default" for cluster-scoped objects.
// - Repeats of the same (source, involvedObject, type, reason, message) are aggregated as Kubernetes does:
//   the existing Event is PATCHed with count+1 and a new lastTimestamp instead of creating another.
// - A per-object spam filter (burst 25, then one per 5 minutes, as client-go's EventSourceObjectSpamFilter)
//   keeps a hot loop from flooding the apiserver.
// - event() never throws and never blocks; flush() waits until everything queued has been written.
import { R, formatTime, type CoreEvent, type KubeObject, type ObjectReference } from '@kemu/api';
import { realClock, silentLogger, type Clock, type Logger } from '@kemu/base';
import { isNotFound } from './errors.ts';
import { TokenBucket } from './ratelimit.ts';
import type { RestClient } from './rest.ts';

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

interface Seen {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
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
  private readonly cacheSize: number;
  private readonly seen = new Map<string, Seen>();
  private readonly spam = new Map<string, TokenBucket>();
  private readonly spamBurst: number;
  private readonly spamRefillMs: number;
  private chain: Promise<void> = Promise.resolve();
  private lastNanos = 0n;

  constructor(
    private readonly client: RestClient,
    readonly source: EventSourceInfo,
    opts: EventRecorderOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? silentLogger();
    this.cacheSize = opts.cacheSize ?? 4096;
    this.spamBurst = opts.spamBurst ?? 25;
    this.spamRefillMs = opts.spamRefillMs ?? 300_000;
  }

  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, opts?: EventOptions): void {
    try {
      const ref = objectReference(obj);
      if (opts?.fieldPath) ref.fieldPath = opts.fieldPath;
      const namespace = obj.metadata.namespace || 'default';
      const now = this.clock.now();
      const source = opts?.host !== undefined ? { component: this.source.component, host: opts.host } : this.source;
      if (!this.allowed(ref, source)) {
        this.log.debug({ reason, object: ref.name }, 'event dropped by the spam filter');
        return;
      }
      this.chain = this.chain
        .then(() => this.write(ref, source, namespace, type, reason, message, now))
        .catch((e: unknown) => this.log.warn({ err: String(e), reason, object: ref.name }, 'could not write event'));
    } catch (e) {
      this.log.warn({ err: String(e) }, 'could not record event');
    }
  }

  /** Resolves once every event queued so far has been written (or given up on). */
  flush(): Promise<void> {
    return this.chain;
  }

  private allowed(ref: ObjectReference, source: EventSourceInfo): boolean {
    if (this.spamBurst <= 0) return true;
    const key = [source.component, source.host ?? '', ref.kind, ref.namespace, ref.name, ref.uid, ref.apiVersion].join('\u0000');
    let b = this.spam.get(key);
    if (!b) {
      if (this.spam.size >= this.cacheSize) this.spam.delete(this.spam.keys().next().value as string);
      b = new TokenBucket(1000 / this.spamRefillMs, this.spamBurst, this.clock);
      this.spam.set(key, b);
    }
    return b.tryAccept();
  }

  private async write(ref: ObjectReference, source: EventSourceInfo, namespace: string, type: string, reason: string, message: string, now: number): Promise<void> {
    const key = [source.component, source.host ?? '', ref.kind, ref.namespace, ref.name, ref.fieldPath, ref.uid, ref.apiVersion, type, reason, message].join('\u0000');
    const prev = this.seen.get(key);
    const ts = formatTime(now);
    if (prev) {
      const count = prev.count + 1;
      try {
        await this.client.patch(R.events, prev.namespace, prev.name, { count, lastTimestamp: ts, message }, 'merge');
        this.remember(key, { ...prev, count });
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
        this.seen.delete(key); // the Event was deleted (or expired): start over with a fresh one
      }
    }
    const name = `${ref.name ?? 'unknown'}.${this.nanos(now).toString(16)}`;
    const ev: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
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
    await this.createWithRetry(namespace, ev);
    this.remember(key, { name, namespace, count: 1, firstTimestamp: ts });
  }

  private async createWithRetry(namespace: string, ev: CoreEvent): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.client.create(R.events, namespace, ev);
        return;
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        // Refusals (4xx: namespace gone, forbidden, invalid) are final; transient trouble is retried briefly.
        if ((typeof code === 'number' && code < 500) || attempt >= 2) throw e;
        await this.clock.sleep(500 * (attempt + 1));
      }
    }
  }

  private remember(key: string, s: Seen): void {
    this.seen.delete(key);
    this.seen.set(key, s);
    if (this.seen.size > this.cacheSize) this.seen.delete(this.seen.keys().next().value as string);
  }

  /** Unique, increasing nanoseconds for Event names (client-go names them <object>.<hex UnixNano>). */
  private nanos(ms: number): bigint {
    let n = BigInt(Math.floor(ms)) * 1_000_000n;
    if (n <= this.lastNanos) n = this.lastNanos + 1n;
    this.lastNanos = n;
    return n;
  }
}
