// client-go's EventCorrelator (tools/record/events_cache.go): what the recorder does with an Event before it
// reaches the apiserver, in client-go's order:
// 1. Aggregate: events that differ only in their message (same source, involvedObject, type, reason,
//    reportingController, reportingInstance) seen with 10 distinct messages within 10 minutes become one
//    Event "(combined from similar events): <message>", counted from then on instead of 10+ new Events.
// 2. Observe: an exact repeat (source, involvedObject incl. fieldPath, type, reason, message) is not a new
//    Event: it keeps the first one's name and firstTimestamp with count + 1, written as a PATCH of
//    count, lastTimestamp and message.
// 3. Spam filter: per source + object, a token bucket (burst 25, one more every 5 minutes) drops the rest.
// Event names are `<object name>.<hex of UnixNano>` as client-go's; the nanoseconds below the clock's
// millisecond are random so that two processes naming an event about one object in the same millisecond
// do not collide (client-go has real nanoseconds), and strictly increasing within the process.
import { randomInt } from 'node:crypto';
import { formatTime, type CoreEvent } from '@kemu/api';
import type { Clock } from '@kemu/base';
import { TokenBucket } from './ratelimit.ts';

export const AGGREGATE_MESSAGE_PREFIX = '(combined from similar events): ';

export interface EventCorrelatorOptions {
  clock: Clock;
  /** Entries kept by each cache (LRU; client-go's maxLruCacheEntries 4096). */
  cacheSize?: number;
  /** Spam filter per source+object: burst and refill interval (defaults 25 and 300 s); burst 0 disables. */
  spamBurst?: number;
  spamRefillMs?: number;
  /** Distinct messages of similar events before they are combined (default 10), and the window (600 s). */
  aggregateMaxEvents?: number;
  aggregateIntervalMs?: number;
}

/** The fields a repeat changes on the stored Event (client-go patches the same three). */
export interface EventRepeatPatch {
  count: number;
  lastTimestamp: string;
  message: string;
}

export interface CorrelatedEvent {
  /** The Event to create (or, with `patch`, the full Event in case the stored one has gone). */
  event: CoreEvent;
  patch?: EventRepeatPatch;
  /** Dropped by the spam filter. */
  skip: boolean;
  /** The cache entry this Event is counted under (for rename). */
  key: string;
}

let lastNanos = 0n;

/** UnixNano for an Event's name: the clock's milliseconds, random nanoseconds below them, increasing in-process within a millisecond. */
export function eventNanos(ms: number): bigint {
  const base = BigInt(Math.floor(ms)) * 1_000_000n;
  let n = base + BigInt(randomInt(1_000_000));
  if (n <= lastNanos && lastNanos < base + 999_999n) n = lastNanos + 1n;
  lastNanos = n;
  return n;
}

/** `<object name>.<hex UnixNano>`, as client-go names Events. */
export function eventName(objectName: string | undefined, ms: number): string {
  return `${objectName ?? ''}.${eventNanos(ms).toString(16)}`;
}

const SEP = '\u0000';

function eventKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.fieldPath, o.uid, o.apiVersion, e.type, e.reason, e.message].map((x) => x ?? '').join(SEP);
}

function spamKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].map((x) => x ?? '').join(SEP);
}

function aggregateKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, e.type, e.reason, e.reportingComponent, e.reportingInstance]
    .map((x) => x ?? '')
    .join(SEP);
}

/** A small LRU on Map's insertion order. */
class Lru<V> {
  private readonly m = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.m.get(k);
    if (v !== undefined) {
      this.m.delete(k);
      this.m.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.m.delete(k);
    this.m.set(k, v);
    if (this.m.size > this.max) this.m.delete(this.m.keys().next().value as string);
  }
}

interface AggregateRecord {
  localKeys: Set<string>;
  lastMs: number;
}

interface EventLog {
  count: number;
  firstTimestamp: string | null | undefined;
  name: string;
}

export class EventCorrelator {
  private readonly clock: Clock;
  private readonly spam: Lru<TokenBucket>;
  private readonly aggregates: Lru<AggregateRecord>;
  private readonly logs: Lru<EventLog>;
  private readonly spamBurst: number;
  private readonly spamQps: number;
  private readonly maxEvents: number;
  private readonly intervalMs: number;

  constructor(o: EventCorrelatorOptions) {
    const size = o.cacheSize ?? 4096;
    this.clock = o.clock;
    this.spam = new Lru(size);
    this.aggregates = new Lru(size);
    this.logs = new Lru(size);
    this.spamBurst = o.spamBurst ?? 25;
    this.spamQps = 1000 / (o.spamRefillMs ?? 300_000);
    this.maxEvents = o.aggregateMaxEvents ?? 10;
    this.intervalMs = o.aggregateIntervalMs ?? 600_000;
  }

  correlate(ev: CoreEvent): CorrelatedEvent {
    const { event: aggregated, key } = this.aggregate(ev);
    const observed = this.observe(aggregated, key);
    return { ...observed, key, skip: !this.allowed(observed.event) };
  }

  /** EventAggregate: the event itself, or the combined one once similar events pile up. */
  private aggregate(ev: CoreEvent): { event: CoreEvent; key: string } {
    const now = this.clock.now();
    const aggKey = aggregateKey(ev);
    let rec = this.aggregates.get(aggKey);
    if (!rec || now - rec.lastMs > this.intervalMs) rec = { localKeys: new Set(), lastMs: now };
    rec.localKeys.add(ev.message ?? '');
    rec.lastMs = now;
    this.aggregates.set(aggKey, rec);
    if (rec.localKeys.size < this.maxEvents) return { event: ev, key: eventKey(ev) };
    // Do not let the set grow past the limit (client-go pops an arbitrary key).
    const first = rec.localKeys.values().next().value;
    if (first !== undefined) rec.localKeys.delete(first);
    const ts = formatTime(now);
    const combined: CoreEvent = {
      ...ev,
      metadata: { name: eventName(ev.involvedObject.name, now), namespace: ev.metadata.namespace },
      message: AGGREGATE_MESSAGE_PREFIX + (ev.message ?? ''),
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
    };
    return { event: combined, key: aggKey };
  }

  /** eventObserve: a repeat takes the first occurrence's name, firstTimestamp and count + 1. */
  private observe(ev: CoreEvent, key: string): { event: CoreEvent; patch?: EventRepeatPatch } {
    const last = this.logs.get(key);
    let out = ev;
    let patch: EventRepeatPatch | undefined;
    if (last && last.count > 0) {
      out = { ...ev, metadata: { ...ev.metadata, name: last.name }, firstTimestamp: last.firstTimestamp, count: last.count + 1 };
      patch = { count: out.count ?? 1, lastTimestamp: out.lastTimestamp ?? formatTime(this.clock.now()), message: out.message ?? '' };
    }
    this.logs.set(key, { count: out.count ?? 1, firstTimestamp: out.firstTimestamp, name: out.metadata.name ?? '' });
    return patch ? { event: out, patch } : { event: out };
  }

  /** The Event was written under another name (its first name was taken): repeats patch that one. */
  rename(key: string, oldName: string, newName: string): void {
    const last = this.logs.get(key);
    if (last && last.name === oldName) this.logs.set(key, { ...last, name: newName });
  }

  private allowed(ev: CoreEvent): boolean {
    if (this.spamBurst <= 0) return true;
    const k = spamKey(ev);
    let b = this.spam.get(k);
    if (!b) b = new TokenBucket(this.spamQps, this.spamBurst, this.clock);
    this.spam.set(k, b);
    return b.tryAccept();
  }
}
