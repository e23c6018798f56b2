import { afterEach, describe, expect, it } from 'vitest';
import { R, StatusError, formatTime, type Pod, type ReplicaSet } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { ReplicaSetController } from './replicaset.ts';
import { getControllerOf, podsToDelete } from './pods.ts';
import { slowStartBatch } from './podcontrol.ts';

function rsObj(name: string, replicas: number, extra: Partial<ReplicaSet['spec']> = {}): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      ...extra,
    },
  };
}

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

async function start(seed: (env: FakeEnv) => Promise<void> = async () => undefined) {
  const env = fakeContext();
  envs.push(env);
  await seed(env);
  const c = new ReplicaSetController(env.ctx);
  env.informers.start(env.abort.signal);
  const done = c.run();
  await settle();
  return { ...env, c, done };
}

const activePods = (env: FakeEnv) => env.api.all<Pod>(R.pods, 'default').filter((p) => !p.metadata.deletionTimestamp);

describe('replicaset-controller', () => {
  it('creates pods with generateName, labels and a controller ownerReference, and reports status', async () => {
    const env = await start();
    const rs = await env.api.create(R.replicasets, 'default', rsObj('web', 3));
    await settle();
    const pods = activePods(env);
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(p.metadata.labels).toEqual({ app: 'web' });
      expect(p.metadata.ownerReferences).toEqual([
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true },
      ]);
    }
    const got = await env.api.get<ReplicaSet>(R.replicasets, 'default', 'web');
    expect(got.status).toMatchObject({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 });
    expect(env.recorder.events.filter((e) => e.reason === 'SuccessfulCreate')).toHaveLength(3);
  });

  it('never over-creates while its cache lags behind its own creations (expectations)', async () => {
    const env = await start();
    const pods = env.informers.get<Pod>(R.pods);
    pods.hold();
    await env.api.create(R.replicasets, 'default', rsObj('web', 5));
    await settle();
    // Poke the RS again and again: the cache still shows no pods, but expectations are not yet met.
    for (let i = 0; i < 5; i++) {
      const cur = await env.api.get<ReplicaSet>(R.replicasets, 'default', 'web');
      await env.api.update(R.replicasets, 'default', { ...cur, metadata: { ...cur.metadata, annotations: { poke: String(i) } } });
      await settle();
    }
    expect(activePods(env)).toHaveLength(5);
    pods.release();
    await settle();
    expect(activePods(env)).toHaveLength(5);
    expect(env.c.expectations.satisfied('default/web')).toBe(true);
  });

  it('scales down, deleting unready pods first, and scales up again', async () => {
    const env = await start();
    await env.api.create(R.replicasets, 'default', rsObj('web', 4));
    await settle();
    const pods = activePods(env);
    // Two pods become ready; scaling to 2 must delete the other two.
    const readyNames = new Set<string>();
    for (const p of pods.slice(0, 2)) {
      readyNames.add(p.metadata.name ?? '');
      await env.api.updateStatus(R.pods, 'default', {
        ...p,
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2023-01-01T00:00:00Z' }] },
      });
    }
    await settle();
    const cur = await env.api.get<ReplicaSet>(R.replicasets, 'default', 'web');
    await env.api.update(R.replicasets, 'default', { ...cur, spec: { ...cur.spec, replicas: 2 } });
    await settle();
    const left = activePods(env);
    expect(left.map((p) => p.metadata.name).sort()).toEqual([...readyNames].sort());
    const st = (await env.api.get<ReplicaSet>(R.replicasets, 'default', 'web')).status;
    expect(st).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 2 });
    const again = await env.api.get<ReplicaSet>(R.replicasets, 'default', 'web');
    await env.api.update(R.replicasets, 'default', { ...again, spec: { ...again.spec, replicas: 6 } });
    await settle();
    expect(activePods(env)).toHaveLength(6);
  });

  it('counts a ready pod as available only after minReadySeconds', async () => {
    const env = await start();
    await env.api.create(R.replicasets, 'default', rsObj('web', 2, { minReadySeconds: 10 }));
    await settle();
    // Mid-second, as a real clock always is (conditions carry whole seconds).
    await env.clock.advance(500);
    for (const p of activePods(env)) {
      await env.api.updateStatus(R.pods, 'default', {
        ...p,
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(env.clock.now()) }] },
      });
    }
    await settle();
    const status = async () => (await env.api.get<ReplicaSet>(R.replicasets, 'default', 'web')).status;
    expect(await status()).toMatchObject({ readyReplicas: 2, availableReplicas: 0 });
    // Nothing else happens; the controller looks again once minReadySeconds have passed.
    for (let i = 0; i < 12; i++) {
      await env.clock.advance(1000);
      await settle(5);
    }
    await settle();
    expect(await status()).toMatchObject({ readyReplicas: 2, availableReplicas: 2 });
  });

  it('adopts matching orphans and releases pods that stop matching', async () => {
    const env = await start(async (e) => {
      await e.api.create<Pod>(R.pods, 'default', {
        metadata: { name: 'orphan', labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'x' }] },
      });
    });
    const rs = await env.api.create(R.replicasets, 'default', rsObj('web', 2));
    await settle();
    const orphan = await env.api.get<Pod>(R.pods, 'default', 'orphan');
    expect(getControllerOf(orphan)?.uid).toBe(rs.metadata.uid);
    expect(activePods(env)).toHaveLength(2);
    // Relabel the adopted pod: it is released and replaced.
    const cur = await env.api.get<Pod>(R.pods, 'default', 'orphan');
    await env.api.update(R.pods, 'default', { ...cur, metadata: { ...cur.metadata, labels: { app: 'other' } } });
    await settle();
    const released = await env.api.get<Pod>(R.pods, 'default', 'orphan');
    expect(released.metadata.ownerReferences).toBeUndefined();
    expect(activePods(env).filter((p) => getControllerOf(p)?.uid === rs.metadata.uid)).toHaveLength(2);
  });

  it('does not adopt pods owned by another controller', async () => {
    const env = await start(async (e) => {
      await e.api.create<Pod>(R.pods, 'default', {
        metadata: { name: 'taken', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid: 'other', controller: true }] },
        spec: { containers: [{ name: 'c', image: 'x' }] },
      });
    });
    await env.api.create(R.replicasets, 'default', rsObj('web', 1));
    await settle();
    expect((await env.api.get<Pod>(R.pods, 'default', 'taken')).metadata.ownerReferences?.[0]?.uid).toBe('other');
    expect(activePods(env)).toHaveLength(2);
  });

  it('stops after a failed slow-start batch and records FailedCreate', async () => {
    const env = await start();
    let creates = 0;
    env.api.failWith = (call) => {
      if (call.verb === 'create' && call.resource === 'pods' && ++creates > 3) {
        return new StatusError('Forbidden', 'pods "web-x" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3');
      }
      return undefined;
    };
    await env.api.create(R.replicasets, 'default', rsObj('web', 20));
    await settle();
    // Batches 1, 2 succeed (3 pods), the batch of 4 fails; the status write re-triggers one more small
    // batch that fails too, and then the key waits for its back-off: no hot loop of 17 creates.
    expect(creates).toBeGreaterThanOrEqual(7);
    expect(creates).toBeLessThan(12);
    expect(activePods(env)).toHaveLength(3);
    const st = (await env.api.get<ReplicaSet>(R.replicasets, 'default', 'web')).status;
    expect(st?.conditions?.[0]).toMatchObject({ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate' });
    expect(env.recorder.events.some((e) => e.reason === 'FailedCreate')).toBe(true);
    expect(env.c.expectations.satisfied('default/web')).toBe(true);
  });
});

describe('replicaset-controller with create requests of unknown outcome', () => {
  it('waits for the informer instead of creating a duplicate when a create was applied but its reply lost', async () => {
    const env = await start();
    const pods = env.informers.get<Pod>(R.pods);
    pods.hold();
    const create = env.api.create.bind(env.api);
    let lost = 0;
    env.api.create = (async (r, ns, obj) => {
      const out = await create(r, ns, obj);
      // The first pod is created, but the controller only sees a dropped connection.
      if (r === R.pods && lost++ === 0) throw new Error('socket hang up');
      return out;
    }) as typeof env.api.create;
    await env.api.create(R.replicasets, 'default', rsObj('web', 3));
    await settle();
    await env.clock.advance(1000);
    await settle();
    // The cache still shows nothing, yet no second pod was made.
    expect(activePods(env)).toHaveLength(1);
    pods.release();
    await settle();
    await env.clock.advance(1000);
    await settle();
    expect(activePods(env)).toHaveLength(3);
  });

  it('gives up waiting after a while when the create really failed', async () => {
    const env = await start();
    let failed = 0;
    env.api.failWith = (call) => (call.verb === 'create' && call.resource === 'pods' && failed++ === 0 ? (new Error('socket hang up') as never) : undefined);
    await env.api.create(R.replicasets, 'default', rsObj('web', 2));
    await settle();
    expect(activePods(env)).toHaveLength(0);
    // Step the fake clock so timers re-armed along the way fire too.
    for (let i = 0; i < 17; i++) {
      await env.clock.advance(1000);
      await settle(5);
    }
    await settle();
    expect(activePods(env)).toHaveLength(2);
  });
});

describe('slowStartBatch', () => {
  it('grows batches 1, 2, 4, … capped by what remains', async () => {
    const sizes: number[] = [];
    let inFlight = 0;
    const r = await slowStartBatch(10, 1, async () => {
      inFlight++;
      await Promise.resolve();
      sizes.push(inFlight);
      inFlight--;
    });
    expect(r.successes).toBe(10);
    expect(Math.max(...sizes)).toBe(4);
  });
});

describe('podsToDelete (ActivePodsWithRanks)', () => {
  const now = Date.parse('2024-01-01T00:00:00Z');
  const pod = (name: string, o: { node?: string; phase?: Pod['status'] extends infer S ? S extends { phase?: infer P } ? P : never : never; ready?: string; created?: string; restarts?: number; cost?: string }): Pod => ({
    metadata: {
      name,
      namespace: 'default',
      uid: name,
      creationTimestamp: o.created ?? '2023-12-01T00:00:00Z',
      annotations: o.cost ? { 'controller.kubernetes.io/pod-deletion-cost': o.cost } : undefined,
    },
    spec: { containers: [], nodeName: o.node },
    status: {
      phase: o.phase ?? 'Running',
      conditions: o.ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: o.ready }] : [],
      containerStatuses: [{ name: 'c', ready: !!o.ready, restartCount: o.restarts ?? 0, image: '', imageID: '' }],
    },
  });
  it.each([
    ['unassigned before assigned', pod('a', { node: 'n1', ready: '2023-12-01T00:00:00Z' }), pod('b', {})],
    ['pending before running', pod('a', { node: 'n1' }), pod('b', { node: 'n1', phase: 'Pending' })],
    ['not ready before ready', pod('a', { node: 'n1', ready: '2023-12-01T00:00:00Z' }), pod('b', { node: 'n1' })],
    ['lower deletion cost first', pod('a', { node: 'n1', cost: '10' }), pod('b', { node: 'n1', cost: '-5' })],
    ['more restarts first', pod('a', { node: 'n1' }), pod('b', { node: 'n2', restarts: 3 })],
    ['newer before older', pod('a', { node: 'n1', created: '2023-01-01T00:00:00Z' }), pod('b', { node: 'n2', created: '2023-12-31T23:00:00Z' })],
  ])('%s', (_why, keep, del) => {
    expect(podsToDelete([keep, del], [keep, del], 1, now).map((p) => p.metadata.name)).toEqual(['b']);
  });
  it('prefers pods doubled up on a node', () => {
    const a = pod('a', { node: 'n1' });
    const b = pod('b', { node: 'n2' });
    const c = pod('c', { node: 'n2' });
    expect(podsToDelete([a, b, c], [a, b, c], 1, now)[0]?.spec.nodeName).toBe('n2');
  });
});
