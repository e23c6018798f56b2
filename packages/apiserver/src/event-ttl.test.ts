import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@kemu/base';
import type { KubeObject } from '@kemu/api';
import { lastWriteTime, startEventTTL } from './event-ttl.ts';
import { startMemoryApiServer } from './testing/memory-server.ts';
import type { ApiServer } from './server.ts';

describe('--event-ttl', () => {
  let srv: ApiServer;
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = { now: () => now };
  beforeAll(async () => {
    srv = await startMemoryApiServer({ clock });
  });
  afterAll(async () => srv.close());

  const event = (name: string, extra: Record<string, unknown> = {}) =>
    srv.app.inject({
      method: 'POST',
      url: '/api/v1/namespaces/default/events',
      payload: { metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Test', message: 'm', type: 'Normal', ...extra },
    });
  const status = async (name: string) => (await srv.app.inject({ method: 'GET', url: `/api/v1/namespaces/default/events/${name}` })).statusCode;

  it('the last write is the latest time the Event carries', () => {
    const ev = {
      metadata: { creationTimestamp: '2026-01-01T00:00:00Z', managedFields: [{ time: '2026-01-01T00:10:00Z' }] },
      lastTimestamp: '2026-01-01T00:05:00Z',
      series: { count: 2, lastObservedTime: '2026-01-01T00:20:00.000000Z' },
    } as unknown as KubeObject;
    expect(lastWriteTime(ev)).toBe(Date.parse('2026-01-01T00:20:00Z'));
  });

  it('deletes an Event one TTL after its last write, and only then; core and events.k8s.io alike', async () => {
    const ttl = startEventTTL({ registry: srv.ctx.registry, clock, logger: silentLogger(), ttlMs: 3_600_000, intervalMs: 3_600_000 });
    try {
      expect((await event('old')).statusCode).toBe(201);
      now += 30 * 60_000;
      expect((await event('young')).statusCode).toBe(201);
      now += 30 * 60_000 - 1000;
      expect(await ttl.sweep()).toBe(0);
      now += 1000;
      expect(await ttl.sweep()).toBe(1);
      expect(await status('old')).toBe(404);
      expect(await status('young')).toBe(200);
      const v1 = await srv.app.inject({ method: 'GET', url: '/apis/events.k8s.io/v1/namespaces/default/events/old' });
      expect(v1.statusCode).toBe(404);
      now += 30 * 60_000;
      expect(await ttl.sweep()).toBe(1);
      expect(await status('young')).toBe(404);
    } finally {
      ttl.stop();
    }
  });
});
