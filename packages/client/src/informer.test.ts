import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { R, type KubeObject } from '@kemu/api';
import { SharedInformerFactory } from './factory.ts';
import type { SharedInformer } from './informer.ts';
import { RestClient } from './rest.ts';
import { isDeletedFinalStateUnknown } from './store.ts';
import { FakeApiserver } from './testing/fake-apiserver.ts';

const PODS = '/api/v1/pods';
let fake: FakeApiserver;
let client: RestClient;
let ctrl: AbortController;

beforeEach(async () => {
  fake = await new FakeApiserver().start();
  client = new RestClient({ server: fake.url, qps: -1 });
  ctrl = new AbortController();
});
afterEach(async () => {
  ctrl.abort();
  await client.close();
  await fake.stop();
});

function pod(name: string, ns = 'default', labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels } };
}

async function until(what: string, fn: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function record(inf: SharedInformer<KubeObject>): string[] {
  const log: string[] = [];
  inf.addEventHandler({
    onAdd: (o, initial) => log.push(`add ${o.metadata.name}${initial ? ' (initial)' : ''}`),
    onUpdate: (o, n) => log.push(`update ${o.metadata.name} ${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`),
    onDelete: (o) => log.push(isDeletedFinalStateUnknown<KubeObject>(o) ? `delete-unknown ${o.key}` : `delete ${o.metadata.name}`),
  });
  return log;
}

describe('SharedInformer over a fake apiserver', () => {
  it('lists in pages, syncs, then delivers add/update/delete in order; the store is current before handlers run', async () => {
    for (let i = 0; i < 7; i++) fake.put(PODS, pod(`p${i}`));
    const factory = new SharedInformerFactory(client, { pageSize: 3 });
    const inf = factory.informerFor<KubeObject>(R.pods);
    expect(factory.informerFor(R.pods)).toBe(inf); // shared
    const log = record(inf);
    const seenInStore: boolean[] = [];
    inf.addEventHandler({ onAdd: (o) => seenInStore.push(inf.store.get(`default/${o.metadata.name}`) === o) });
    factory.start(ctrl.signal);
    expect(await factory.waitForCacheSync(ctrl.signal)).toBe(true);
    expect(inf.store.keys().sort()).toEqual(['default/p0', 'default/p1', 'default/p2', 'default/p3', 'default/p4', 'default/p5', 'default/p6']);
    expect(fake.requests.filter((r) => r.startsWith('GET /api/v1/pods?limit=3'))).toHaveLength(3);
    expect(log.filter((l) => l.endsWith('(initial)'))).toHaveLength(7);
    await until('watch', () => fake.requests.some((r) => r.includes('watch=true')));
    const watchReq = fake.requests.find((r) => r.includes('watch=true')) ?? '';
    expect(watchReq).toMatch(/allowWatchBookmarks=true/);
    const t = Number(/timeoutSeconds=(\d+)/.exec(watchReq)?.[1]);
    expect(t).toBeGreaterThanOrEqual(300);
    expect(t).toBeLessThanOrEqual(600);

    log.length = 0;
    fake.put(PODS, pod('new'));
    const upd = fake.put(PODS, pod('p1', 'default', { a: 'b' }));
    fake.remove(PODS, 'default', 'p2');
    await until('events', () => log.length === 3);
    expect(log).toEqual(['add new', `update p1 102->${upd.metadata.resourceVersion}`, 'delete p2']);
    expect(inf.store.get('default/p1')?.metadata.labels).toEqual({ a: 'b' });
    expect(inf.store.get('default/p2')).toBeUndefined();
    expect(seenInStore.every(Boolean)).toBe(true);
    expect(inf.store.byIndex('namespace', 'default')).toHaveLength(7);
  });

  it('resumes from the last resourceVersion after dropped connections without missing or repeating events', async () => {
    fake.put(PODS, pod('a'));
    const factory = new SharedInformerFactory(client);
    const inf = factory.informerFor<KubeObject>(R.pods);
    const log = record(inf);
    factory.start(ctrl.signal);
    await factory.waitForCacheSync(ctrl.signal);
    await until('watch', () => fake.requests.some((r) => r.includes('watch=true')));
    for (let i = 0; i < 5; i++) {
      fake.put(PODS, pod(`w${i}`));
      await until(`w${i}`, () => inf.store.get(`default/w${i}`) !== undefined);
      fake.dropWatches();
      // A write while no watch is open must still arrive after the resume.
      fake.put(PODS, pod(`gap${i}`));
      await until(`gap${i}`, () => inf.store.get(`default/gap${i}`) !== undefined);
    }
    expect(log.filter((l) => l.startsWith('add')).sort()).toEqual(
      ['add a (initial)', ...[0, 1, 2, 3, 4].flatMap((i) => [`add w${i}`, `add gap${i}`])].sort(),
    );
    expect(inf.stats.lists).toBe(1); // resumed, never re-listed
    const watches = fake.requests.filter((r) => r.includes('watch=true'));
    expect(watches.length).toBeGreaterThanOrEqual(6);
  });

  it.each(['event', 'http'] as const)('re-lists on 410 (%s) and reports missed deletes as DeletedFinalStateUnknown', async (mode) => {
    fake.expiredAs = mode;
    fake.put(PODS, pod('keep'));
    fake.put(PODS, pod('doomed'));
    fake.put(PODS, pod('changed'));
    const factory = new SharedInformerFactory(client, { backoffInitialMs: 10 });
    const inf = factory.informerFor<KubeObject>(R.pods);
    const log = record(inf);
    factory.start(ctrl.signal);
    await factory.waitForCacheSync(ctrl.signal);
    await until('watch', () => fake.requests.some((r) => r.includes('watch=true')));
    // Changes the informer will not see as events: the watch is cut and history compacted meanwhile
    // (all before the reflector gets to run again).
    fake.dropWatches();
    fake.remove(PODS, 'default', 'doomed');
    fake.put(PODS, pod('changed', 'default', { v: '2' }));
    fake.put(PODS, pod('born'));
    fake.compact();
    log.length = 0;
    await until('relist', () => inf.stats.relistsOnExpired === 1 && inf.stats.lists === 2);
    expect(log.map((l) => l.replace(/\d+->\d+/, 'N->M')).sort()).toEqual(['add born', 'delete-unknown default/doomed', 'update changed N->M']);
    expect(inf.store.keys().sort()).toEqual(['default/born', 'default/changed', 'default/keep']);
    // And it keeps watching after the re-list.
    fake.put(PODS, pod('after'));
    await until('after', () => inf.store.get('default/after') !== undefined);
  });

  it('a dead stream (no bytes) is abandoned after the idle deadline and the watch resumes', async () => {
    const factory = new SharedInformerFactory(client, { watchIdleTimeoutMs: 200 });
    const inf = factory.informerFor<KubeObject>(R.pods);
    fake.silentWatches = true;
    factory.start(ctrl.signal);
    await factory.waitForCacheSync(ctrl.signal);
    await until('idle timeout', () => inf.stats.idleTimeouts >= 1);
    fake.silentWatches = false;
    fake.put(PODS, pod('late'));
    await until('late', () => inf.store.get('default/late') !== undefined);
  });

  it('bookmarks advance lastSyncResourceVersion; resync re-delivers updates; late handlers get synthetic adds', async () => {
    fake.put(PODS, pod('x'));
    const factory = new SharedInformerFactory(client);
    const inf = factory.informerFor<KubeObject>(R.pods, { namespace: 'default' });
    let resyncs = 0;
    inf.addEventHandler({ onUpdate: (o, n) => void (o === n && resyncs++) }, 50);
    factory.start(ctrl.signal);
    await factory.waitForCacheSync(ctrl.signal);
    await until('watch', () => fake.requests.some((r) => r.includes('watch=true')));
    fake.remove('/api/v1/configmaps', 'default', 'none');
    fake.put('/api/v1/configmaps', pod('cm')); // other collection: moves the RV, not the pods
    fake.bookmark();
    await until('bookmark', () => inf.lastSyncResourceVersion() === String(fake.currentRV()));
    await until('resync', () => resyncs >= 2);
    const late: string[] = [];
    inf.addEventHandler({ onAdd: (o, initial) => late.push(`${o.metadata.name} ${initial}`) });
    expect(late).toEqual(['x true']);
    expect(fake.requests.some((r) => r.startsWith('GET /api/v1/namespaces/default/pods?'))).toBe(true);
  });

  it('a throwing handler does not stop other handlers', async () => {
    const factory = new SharedInformerFactory(client);
    const inf = factory.informerFor<KubeObject>(R.pods);
    inf.addEventHandler({ onAdd: () => { throw new Error('boom'); } });
    const log = record(inf);
    factory.start(ctrl.signal);
    await factory.waitForCacheSync(ctrl.signal);
    fake.put(PODS, pod('y'));
    await until('y', () => log.includes('add y'));
  });
});
