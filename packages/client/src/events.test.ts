import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CoreEvent, KubeObject } from '@kemu/api';
import { FakeClock } from '@kemu/base';
import { EventRecorder } from './events.ts';
import { AGGREGATE_MESSAGE_PREFIX } from './events-correlator.ts';
import { LeaseFence } from './leaderelection/fence.ts';
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
  it("gives up at once on a leader's fence whose term is over: flush() ends without retries or requests", async () => {
    const fence = new LeaseFence('kube-system', 'kube-scheduler', 1_000, () => 0);
    fence.renewed('s-0_1', 1, 0);
    fence.end('released');
    client.fenceWrites(fence);
    // A fake clock: a retry's back-off sleep would never end, so flush() resolving shows there was none.
    const r = new EventRecorder(client, { component: 'kube-scheduler', host: 'h1' }, { clock: new FakeClock() });
    for (let i = 0; i < 5; i++) r.event({ ...pod, metadata: { ...pod.metadata, name: `p-${i}` } }, 'Normal', 'Scheduled', `assigned shop/p-${i}`);
    await r.flush();
    expect(fake.requests.filter((q) => q.startsWith('POST '))).toEqual([]);
  });

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

  it('cluster-scoped objects get their events in "default"; a deleted Event is re-created with the count it reached (client-go)', async () => {
    const r = new EventRecorder(client, { component: 'node-controller' });
    r.event(node, 'Normal', 'RegisteredNode', 'Node n1 event: Registered Node n1 in Controller');
    await r.flush();
    const [ev] = events('default');
    expect(ev?.involvedObject).toMatchObject({ kind: 'Node', name: 'n1' });
    fake.remove('/api/v1/events', 'default', ev?.metadata.name ?? '');
    r.event(node, 'Normal', 'RegisteredNode', 'Node n1 event: Registered Node n1 in Controller');
    await r.flush();
    expect(events('default').map((e) => [e.metadata.name, e.count])).toEqual([[ev?.metadata.name, 2]]);
  });

  it('recorders in different processes never name events about one object alike, even in the same millisecond', async () => {
    const clock = new FakeClock();
    // Distinct reasons and no spam filter, so that every call is a new Event.
    const scheduler = new EventRecorder(client, { component: 'default-scheduler' }, { clock, spamBurst: 0 });
    const kubelet = new EventRecorder(client, { component: 'kubelet', host: 'n1' }, { clock, spamBurst: 0 });
    for (let i = 0; i < 50; i++) {
      scheduler.event(pod, 'Normal', `Scheduled${i}`, 'Successfully assigned shop/web to n1');
      kubelet.event(pod, 'Normal', `Pulling${i}`, 'Pulling image "nginx"');
    }
    await Promise.all([scheduler.flush(), kubelet.flush()]);
    const names = events('shop').map((e) => e.metadata.name ?? '');
    expect(names).toHaveLength(100);
    expect(new Set(names).size).toBe(100);
    // client-go's shape: <object>.<hex UnixNano>, the nanoseconds within the clock's millisecond.
    for (const n of names) {
      const ns = BigInt(`0x${n.slice('web.'.length)}`);
      expect(ns / 1_000_000n).toBe(BigInt(clock.now()));
    }
  });

  it('an Event whose name is taken is created under a fresh name, and its repeats patch that one', async () => {
    let refused = 0;
    fake.intercept = (req, res) => {
      if (req.method !== 'POST' || refused > 0) return false;
      refused++;
      res.writeHead(409, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'AlreadyExists', message: 'events "web.1" already exists', code: 409 }));
      return true;
    };
    const r = new EventRecorder(client, { component: 'kubelet' });
    r.event(pod, 'Normal', 'Pulling', 'Pulling image "nginx"');
    await r.flush();
    r.event(pod, 'Normal', 'Pulling', 'Pulling image "nginx"');
    await r.flush();
    expect(refused).toBe(1);
    expect(events('shop').map((e) => [e.reason, e.count])).toEqual([['Pulling', 2]]);
  });

  it('similar events with ten different messages are combined into one counted Event (client-go EventAggregator)', async () => {
    const clock = new FakeClock();
    const r = new EventRecorder(client, { component: 'replicaset-controller' }, { clock });
    for (let i = 0; i < 12; i++) r.event(pod, 'Warning', 'FailedCreate', `Error creating: quota exceeded ${i}`);
    await r.flush();
    const evs = events('shop');
    // Nine single Events, then one combined Event counted twice more (10th, 11th, 12th message).
    expect(evs.filter((e) => !e.message?.startsWith(AGGREGATE_MESSAGE_PREFIX))).toHaveLength(9);
    const combined = evs.filter((e) => e.message?.startsWith(AGGREGATE_MESSAGE_PREFIX));
    expect(combined.map((e) => [e.message, e.count])).toEqual([[`${AGGREGATE_MESSAGE_PREFIX}Error creating: quota exceeded 11`, 3]]);
    // Outside the 10-minute window the messages count afresh.
    await clock.advance(601_000);
    r.event(pod, 'Warning', 'FailedCreate', 'Error creating: quota exceeded 99');
    await r.flush();
    expect(events('shop').filter((e) => e.message === 'Error creating: quota exceeded 99')).toHaveLength(1);
  });

  it('never throws, even when the server refuses', async () => {
    const r = new EventRecorder(new RestClient({ server: 'http://127.0.0.1:1', qps: -1 }, { maxRetries: 0 }), { component: 'x' });
    expect(() => r.event(pod, 'Normal', 'R', 'm')).not.toThrow();
    await expect(r.flush()).resolves.toBeUndefined();
  }, 10_000);

  it('a spam filter caps events per object', async () => {
    const r = new EventRecorder(client, { component: 'x' }, { spamBurst: 3 });
    for (let i = 0; i < 10; i++) r.event(pod, 'Normal', `R${i}`, 'm');
    await r.flush();
    expect(events('shop')).toHaveLength(3);
  });
});
