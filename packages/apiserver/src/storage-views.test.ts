// events.k8s.io/v1 Events are the core/v1 Events seen through a conversion (as Kubernetes stores both under
// /registry/events): what one group writes, the other lists, gets, watches, patches and deletes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApiServer } from './testing/memory-server.ts';
import type { ApiServer } from './server.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv.close());

const CORE = '/api/v1/namespaces/default/events';
const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';

async function call(method: string, url: string, body?: unknown, contentType = 'application/json') {
  const r = await srv.app.inject({
    method: method as 'GET',
    url,
    headers: { 'content-type': contentType },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: r.statusCode, body: JSON.parse(r.body) as Record<string, unknown> };
}

const kubeletEvent = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web.17f0a1b2c3d4e5f6', namespace: 'default' },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1', apiVersion: 'v1', fieldPath: 'spec.containers{web}' },
  reason: 'Pulled',
  message: 'Container image "nginx" already present on machine',
  source: { component: 'kubelet', host: 'worker-0' },
  firstTimestamp: '2026-12-03T07:00:00Z',
  lastTimestamp: '2026-12-03T07:00:05Z',
  count: 2,
  type: 'Normal',
  eventTime: null,
  reportingComponent: 'kubelet',
  reportingInstance: 'worker-0',
};

describe('events.k8s.io/v1 as a view of core/v1 Events', () => {
  it('a core Event is listed and read through events.k8s.io/v1, converted', async () => {
    const created = await call('POST', CORE, kubeletEvent);
    expect(created.status).toBe(201);
    const list = await call('GET', V1);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ kind: 'EventList', apiVersion: 'events.k8s.io/v1' });
    const items = list.body.items as Record<string, unknown>[];
    expect(items).toHaveLength(1);
    const got = await call('GET', `${V1}/web.17f0a1b2c3d4e5f6`);
    expect(got.status).toBe(200);
    const { metadata, ...rest } = got.body;
    expect(rest).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      eventTime: null,
      reportingController: 'kubelet',
      reportingInstance: 'worker-0',
      reason: 'Pulled',
      regarding: kubeletEvent.involvedObject,
      note: 'Container image "nginx" already present on machine',
      type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'worker-0' },
      deprecatedFirstTimestamp: '2026-12-03T07:00:00Z',
      deprecatedLastTimestamp: '2026-12-03T07:00:05Z',
      deprecatedCount: 2,
    });
    expect((metadata as Record<string, unknown>).resourceVersion).toBe((created.body.metadata as Record<string, unknown>).resourceVersion);
    expect(items[0]).toEqual(got.body);
    // The watch cache serves the same (resourceVersion=0 list).
    const cached = await call('GET', `${V1}?resourceVersion=0`);
    expect(cached.body.items).toEqual([got.body]);
  });

  it('an events.k8s.io/v1 Event is a core Event with source {}, null timestamps and no count', async () => {
    const ev = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'sched.1', namespace: 'default' },
      eventTime: '2026-12-03T07:00:00.123456Z',
      reportingController: 'default-scheduler',
      reportingInstance: 'default-scheduler-cp-0',
      action: 'Binding',
      reason: 'Scheduled',
      regarding: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1', apiVersion: 'v1' },
      note: 'Successfully assigned default/web to worker-0',
      type: 'Normal',
    };
    expect((await call('POST', V1, ev)).status).toBe(201);
    const core = await call('GET', `${CORE}/sched.1`);
    expect(core.status).toBe(200);
    const { metadata: _m, ...rest } = core.body;
    expect(rest).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: ev.regarding,
      reason: 'Scheduled',
      message: 'Successfully assigned default/web to worker-0',
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      type: 'Normal',
      eventTime: '2026-12-03T07:00:00.123456Z',
      action: 'Binding',
      reportingComponent: 'default-scheduler',
      reportingInstance: 'default-scheduler-cp-0',
    });
    // Both groups list both Events.
    expect(((await call('GET', CORE)).body.items as unknown[]).length).toBe(2);
    expect(((await call('GET', V1)).body.items as unknown[]).length).toBe(2);
    // One name for both: creating it again through the other group is AlreadyExists.
    const dup = await call('POST', CORE, { ...kubeletEvent, metadata: { name: 'sched.1' } });
    expect(dup.status).toBe(409);
  });

  it('a watch through events.k8s.io/v1 sees a core write, patch and delete; a patch through the view lands in core', async () => {
    const start = (await call('GET', V1)).body.metadata as Record<string, string>;
    await call('POST', CORE, { ...kubeletEvent, metadata: { name: 'w.1' } });
    await call('PATCH', `${CORE}/w.1`, { count: 3, lastTimestamp: '2026-12-03T07:01:00Z' }, 'application/merge-patch+json');
    // Through events.k8s.io/v1 only series (and metadata) may change, as in Kubernetes' ValidateEventUpdate.
    const immutable = await call('PATCH', `${V1}/w.1`, { note: 'changed' }, 'application/merge-patch+json');
    expect(immutable.status).toBe(422);
    expect(immutable.body).toMatchObject({ reason: 'Invalid', details: { causes: [{ field: 'message', message: expect.stringContaining('field is immutable') as string }] } });
    const series = { count: 4, lastObservedTime: '2026-12-03T07:02:00.000000Z' };
    const viaView = await call('PATCH', `${V1}/w.1`, { series }, 'application/merge-patch+json');
    expect(viaView.status).toBe(200);
    expect(viaView.body).toMatchObject({ series, deprecatedCount: 3 });
    expect((await call('GET', `${CORE}/w.1`)).body).toMatchObject({ series, count: 3, lastTimestamp: '2026-12-03T07:01:00Z' });
    expect((await call('DELETE', `${V1}/w.1`)).status).toBe(200);
    expect((await call('GET', `${CORE}/w.1`)).status).toBe(404);

    const r = await srv.app.inject({ method: 'GET', url: `${V1}?watch=true&resourceVersion=${start.resourceVersion}&timeoutSeconds=1` });
    const events = r.body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; object: Record<string, unknown> });
    expect(events.map((e) => [e.type, e.object.apiVersion, e.object.note, e.object.deprecatedCount])).toEqual([
      ['ADDED', 'events.k8s.io/v1', kubeletEvent.message, 2],
      ['MODIFIED', 'events.k8s.io/v1', kubeletEvent.message, 3],
      ['MODIFIED', 'events.k8s.io/v1', kubeletEvent.message, 3],
      ['DELETED', 'events.k8s.io/v1', kubeletEvent.message, 3],
    ]);
  });
});
