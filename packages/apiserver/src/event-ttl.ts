// --event-ttl: Kubernetes stores each Event under an etcd lease of this length, renewed by every write,
// so an Event disappears one TTL after it was last written. kemu's stores have no leases, so a sweeper
// on each replica deletes Events whose last write (the latest of creationTimestamp, lastTimestamp,
// eventTime, series.lastObservedTime and managedFields times; all in the object, so every replica and a
// restarted one agree) is a TTL old. Deletes are conditional on the resourceVersion seen, so an Event
// written meanwhile stays.
import { parseTime, R, StatusError, type KubeObject } from '@kemu/api';
import type { Logger } from '@kemu/base';
import type { Clock } from './clock.ts';
import type { Registry } from './registry/registry.ts';
import { decodeObject, resourcePrefix } from './storage.ts';

export const EVENT_TTL_FLAGS = {
  'event-ttl': { type: 'duration', default: 3_600_000, usage: 'Amount of time to retain events.' },
} as const;

const time = (v: unknown): number => (typeof v === 'string' ? parseTime(v) : NaN);

/** When the Event was last written, in ms (NaN when it carries no time at all). */
export function lastWriteTime(ev: KubeObject): number {
  const e = ev as KubeObject & { lastTimestamp?: unknown; eventTime?: unknown; series?: { lastObservedTime?: unknown } };
  const times = [time(ev.metadata.creationTimestamp), time(e.lastTimestamp), time(e.eventTime), time(e.series?.lastObservedTime)];
  for (const m of ev.metadata.managedFields ?? []) times.push(time((m as { time?: unknown }).time));
  const known = times.filter((t) => Number.isFinite(t));
  return known.length > 0 ? Math.max(...known) : NaN;
}

export interface EventTTLOptions {
  registry: Registry;
  clock: Clock;
  logger: Logger;
  ttlMs: number;
  /** How often to look (default: a quarter of the TTL, between 100 ms and 1 min). */
  intervalMs?: number;
}

export interface EventTTL {
  /** One pass; resolves with how many Events it deleted. */
  sweep(): Promise<number>;
  stop(): void;
}

export function startEventTTL(o: EventTTLOptions): EventTTL {
  let running: Promise<number> | undefined;
  const pass = async (): Promise<number> => {
    const prefix = resourcePrefix(R.events);
    let deleted = 0;
    let startAfter: string | undefined;
    for (;;) {
      const page = await o.registry.backend.list(prefix, { limit: 500, ...(startAfter ? { startAfter } : {}) });
      const now = o.clock.now();
      for (const kv of page.items) {
        const ev = decodeObject(kv);
        const written = lastWriteTime(ev);
        if (!Number.isFinite(written) || now < written + o.ttlMs) continue;
        try {
          await o.registry.delete(R.events, ev.metadata.namespace, ev.metadata.name ?? '', {
            preconditions: { resourceVersion: String(kv.modRevision) },
            plan: () => ({ kind: 'delete' }),
          });
          deleted++;
        } catch (e) {
          // Gone already (another replica), or written again since: not expired.
          if (!(e instanceof StatusError && (e.reason === 'NotFound' || e.reason === 'Conflict'))) throw e;
        }
      }
      const last = page.items[page.items.length - 1];
      if (!page.more || !last) return deleted;
      startAfter = last.key;
    }
  };
  const sweep = (): Promise<number> => {
    running ??= pass().finally(() => (running = undefined));
    return running;
  };
  const interval = o.intervalMs ?? Math.min(Math.max(o.ttlMs / 4, 100), 60_000);
  const timer = setInterval(() => {
    sweep().catch((e: unknown) => o.logger.warn({ err: String(e) }, 'expiring events failed'));
  }, interval);
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
