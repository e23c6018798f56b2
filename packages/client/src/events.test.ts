import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CoreEvent, KubeObject } from '@kemu/api';
import { EventRecorder } from './events.ts';
import { RestClient } from './rest.ts';
import { FakeApiserver } from './testing/fake-apiserver.ts';

let fake: FakeApiserver;
let client: RestClient;
beforeEach(async () => {
  fake = await new FakeApiserver().start();
  client = new RestClient({ server: fake.url, qps: -1 });
});
afterEach(async () => {
  await client.close();
  await fake.stop();
});

const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop', uid: 'u1' } };
const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'u2' } };

function events(ns: string): CoreEvent[] {
  return fake.listObjects('/api/v1/events', ns) as CoreEvent[];
}

describe('EventRecorder', () => {
  it('creates an Event in the object namespace with source, reference, count 1', async () => {
    const r = new EventRecorder(client, { component: 'kube-scheduler', host: 'h1' });
    r.event(pod, 'Normal', 'Scheduled', 'Successfully assigned shop/web to n1');
    await r.flush();
    const [ev] = events('shop');
    expect(ev).toMatchObject({
      metadata: { namespace: 'shop' },
      involvedObject: { kind: 'Pod', apiVersion: 'v1', name: 'web', namespace: 'shop', uid: 'u1' },
      reason: 'Scheduled',
      type: 'Normal',
      count: 1,
      source: { component: 'kube-scheduler', host: 'h1' },
      reportingComponent: 'kube-scheduler',
    });
    expect(ev?.metadata.name).toMatch(/^web\.[0-9a-f]+$/);
    expect(ev?.firstTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('aggregates repeats by PATCHing count and lastTimestamp; a different message is a new Event', async () => {
    const r = new EventRecorder(client, { component: 'kubelet' });
    r.event(pod, 'Warning', 'BackOff', 'Back-off restarting failed container');
    r.event(pod, 'Warning', 'BackOff', 'Back-off restarting failed container');
    r.event(pod, 'Warning', 'BackOff', 'Back-off restarting failed container');
    r.event(pod, 'Warning', 'BackOff', 'another message');
    await r.flush();
    const evs = events('shop').sort((a, b) => (b.count ?? 0) - (a.count ?? 0));
    expect(evs.map((e) => [e.message, e.count])).toEqual([
      ['Back-off restarting failed container', 3],
      ['another message', 1],
    ]);
    expect(fake.requests.filter((q) => q.startsWith('PATCH /api/v1/namespaces/shop/events/'))).toHaveLength(2);
  });

  it('cluster-scoped objects get their events in "default"; a deleted Event is re-created', async () => {
    const r = new EventRecorder(client, { component: 'node-controller' });
    r.event(node, 'Normal', 'RegisteredNode', 'Node n1 event: Registered Node n1 in Controller');
    await r.flush();
    const [ev] = events('default');
    expect(ev?.involvedObject).toMatchObject({ kind: 'Node', name: 'n1' });
    fake.remove('/api/v1/events', 'default', ev?.metadata.name ?? '');
    r.event(node, 'Normal', 'RegisteredNode', 'Node n1 event: Registered Node n1 in Controller');
    await r.flush();
    expect(events('default').map((e) => e.count)).toEqual([1]);
  });

  it('never throws, even when the server refuses', async () => {
    const r = new EventRecorder(new RestClient({ server: 'http://127.0.0.1:1', qps: -1 }, { maxRetries: 0 }), { component: 'x' });
    expect(() => r.event(pod, 'Normal', 'R', 'm')).not.toThrow();
    await expect(r.flush()).resolves.toBeUndefined();
  }, 10_000);

  it('a spam filter caps events per object', async () => {
    const r = new EventRecorder(client, { component: 'x' }, { spamBurst: 3 });
    for (let i = 0; i < 10; i++) r.event(pod, 'Normal', 'R', `m${i}`);
    await r.flush();
    expect(events('shop')).toHaveLength(3);
  });
});
