import { afterEach, describe, expect, it } from 'vitest';
import { R, type Deployment, type Pod, type ReplicaSet } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../../testing/context.ts';
import { fakeKubelet } from '../../testing/kubelet.ts';
import { ReplicaSetController } from '../replicaset.ts';
import { DeploymentController } from './index.ts';
import { computeHash, resolveFenceposts, safeEncodeString } from './util.ts';

function deployment(name: string, replicas: number, image = 'nginx:1', extra: Partial<Deployment['spec']> = {}): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      ...extra,
    },
  };
}

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

async function start(opts: { kubelet?: boolean } = {}) {
  const env = fakeContext();
  envs.push(env);
  if (opts.kubelet !== false) fakeKubelet(env.api, env.clock);
  const rsc = new ReplicaSetController(env.ctx);
  const dc = new DeploymentController(env.ctx);
  env.informers.start(env.abort.signal);
  void rsc.run();
  void dc.run();
  await settle();
  return env;
}

const pods = (env: FakeEnv) => env.api.all<Pod>(R.pods, 'default').filter((p) => !p.metadata.deletionTimestamp);
const replicaSets = (env: FakeEnv) => env.api.all<ReplicaSet>(R.replicasets, 'default');
const get = (env: FakeEnv, name = 'web') => env.api.get<Deployment>(R.deployments, 'default', name);

async function edit(env: FakeEnv, fn: (d: Deployment) => void, name = 'web'): Promise<void> {
  const d = await get(env, name);
  fn(d);
  await env.api.update(R.deployments, 'default', d);
}

/** Settles until the deployment reports a finished rollout (what kubectl rollout status waits for). */
async function rolledOut(env: FakeEnv, name = 'web'): Promise<Deployment> {
  for (let i = 0; i < 40; i++) {
    await settle(20);
    const d = await get(env, name);
    const s = d.status ?? {};
    const want = d.spec.replicas ?? 1;
    if (
      (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
      (s.updatedReplicas ?? 0) === want &&
      (s.replicas ?? 0) === want &&
      (s.availableReplicas ?? 0) === want
    )
      return d;
  }
  throw new Error(`rollout did not finish: ${JSON.stringify((await get(env, name)).status)}`);
}

describe('deployment-controller', () => {
  it('creates one ReplicaSet <name>-<hash> with the hash label, revision annotations and 3 pods', async () => {
    const env = await start();
    const d0 = await env.api.create(R.deployments, 'default', deployment('web', 3));
    const d = await rolledOut(env);
    const rss = replicaSets(env);
    expect(rss).toHaveLength(1);
    const rs = rss[0] as ReplicaSet;
    const hash = rs.spec.template?.metadata?.labels?.['pod-template-hash'] ?? '';
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(rs.spec.selector.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'web', uid: d0.metadata.uid, controller: true, blockOwnerDeletion: true });
    expect(rs.metadata.annotations).toMatchObject({
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
    expect(d.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    expect(pods(env)).toHaveLength(3);
    expect(pods(env).every((p) => p.metadata.labels?.['pod-template-hash'] === hash)).toBe(true);
    expect(d.status).toMatchObject({ replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
    const conds = Object.fromEntries((d.status?.conditions ?? []).map((c) => [c.type, c]));
    expect(conds.Available).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
    expect(conds.Progressing).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "web-${hash}" has successfully progressed.` });
    expect(env.recorder.events).toContainEqual({ object: 'Deployment/web', type: 'Normal', reason: 'ScalingReplicaSet', message: `Scaled up replica set web-${hash} from 0 to 3` });
  });

  it('scales to 10 and back to 2', async () => {
    const env = await start();
    await env.api.create(R.deployments, 'default', deployment('web', 3));
    await rolledOut(env);
    await edit(env, (d) => (d.spec.replicas = 10));
    await rolledOut(env);
    expect(pods(env)).toHaveLength(10);
    await edit(env, (d) => (d.spec.replicas = 2));
    const d = await rolledOut(env);
    expect(pods(env)).toHaveLength(2);
    expect(replicaSets(env)).toHaveLength(1);
    expect(replicaSets(env)[0]?.metadata.annotations?.['deployment.kubernetes.io/desired-replicas']).toBe('2');
    expect(d.status?.replicas).toBe(2);
  });

  it('rolls out a new image within maxSurge/maxUnavailable at every moment, and rolls back', async () => {
    const env = await start();
    await env.api.create(R.deployments, 'default', deployment('web', 10, 'nginx:1'));
    await rolledOut(env);
    const before = replicaSets(env)[0] as ReplicaSet;
    // Watch every write: the active pods never exceed 10 + 3 (25% of 10, rounded up) and ready pods never
    // drop below 10 - 2 (25%, rounded down).
    let maxTotal = 0;
    let minReady = Infinity;
    env.api.subscribe(() => {
      const active = pods(env);
      maxTotal = Math.max(maxTotal, active.length);
      minReady = Math.min(minReady, active.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length);
    });
    await edit(env, (d) => ((d.spec.template.spec.containers[0] as { image: string }).image = 'nginx:2'));
    const d = await rolledOut(env);
    expect(maxTotal).toBeLessThanOrEqual(13);
    expect(minReady).toBeGreaterThanOrEqual(8);
    expect(pods(env).every((p) => p.spec.containers[0]?.image === 'nginx:2')).toBe(true);
    expect(d.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    const rss = replicaSets(env);
    expect(rss).toHaveLength(2);
    expect(rss.find((r) => r.metadata.uid === before.metadata.uid)?.spec.replicas).toBe(0);

    // kubectl rollout undo: the old template comes back; the old ReplicaSet is reused with revision 3.
    await edit(env, (x) => ((x.spec.template.spec.containers[0] as { image: string }).image = 'nginx:1'));
    const back = await rolledOut(env);
    const old = replicaSets(env).find((r) => r.metadata.uid === before.metadata.uid);
    expect(replicaSets(env)).toHaveLength(2);
    expect(old?.spec.replicas).toBe(10);
    expect(old?.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    expect(old?.metadata.annotations?.['deployment.kubernetes.io/revision-history']).toBe('1');
    expect(back.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
  });

  it('Recreate scales the old ReplicaSet to zero before the new one gets pods', async () => {
    const env = await start();
    await env.api.create(R.deployments, 'default', deployment('web', 3, 'a', { strategy: { type: 'Recreate' } }));
    await rolledOut(env);
    let mixed = false;
    env.api.subscribe(() => {
      const images = new Set(pods(env).map((p) => p.spec.containers[0]?.image));
      if (images.size > 1) mixed = true;
    });
    await edit(env, (d) => ((d.spec.template.spec.containers[0] as { image: string }).image = 'b'));
    await rolledOut(env);
    expect(mixed).toBe(false);
    expect(pods(env).map((p) => p.spec.containers[0]?.image)).toEqual(['b', 'b', 'b']);
  });

  it('pauses (no new ReplicaSet, scaling still works) and resumes', async () => {
    const env = await start();
    await env.api.create(R.deployments, 'default', deployment('web', 2));
    await rolledOut(env);
    await edit(env, (d) => (d.spec.paused = true));
    await settle();
    await edit(env, (d) => ((d.spec.template.spec.containers[0] as { image: string }).image = 'nginx:2'));
    await settle();
    expect(replicaSets(env)).toHaveLength(1);
    expect((await get(env)).status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'Unknown', reason: 'DeploymentPaused' });
    await edit(env, (d) => (d.spec.replicas = 4));
    await settle(100);
    expect(pods(env)).toHaveLength(4);
    await edit(env, (d) => (d.spec.paused = false));
    await rolledOut(env);
    expect(replicaSets(env)).toHaveLength(2);
    expect(pods(env).every((p) => p.spec.containers[0]?.image === 'nginx:2')).toBe(true);
  });

  it('keeps only revisionHistoryLimit old ReplicaSets', async () => {
    const env = await start();
    await env.api.create(R.deployments, 'default', deployment('web', 1, 'v1', { revisionHistoryLimit: 1 }));
    await rolledOut(env);
    for (const v of ['v2', 'v3', 'v4']) {
      await edit(env, (d) => ((d.spec.template.spec.containers[0] as { image: string }).image = v));
      await rolledOut(env);
      await settle();
    }
    const rss = replicaSets(env).map((r) => r.spec.template?.spec.containers[0]?.image).sort();
    expect(rss).toEqual(['v3', 'v4']);
  });

  it('reports ProgressDeadlineExceeded when pods never become ready', async () => {
    const env = await start({ kubelet: false });
    await env.api.create(R.deployments, 'default', deployment('web', 2, 'x', { progressDeadlineSeconds: 10 }));
    await settle();
    expect(pods(env)).toHaveLength(2);
    await env.clock.advance(12_000);
    await settle();
    const d = await get(env);
    const p = d.status?.conditions?.find((c) => c.type === 'Progressing');
    expect(p).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
    expect(d.status?.conditions?.find((c) => c.type === 'Available')).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable' });
  });
});

describe('deployment-controller adoption and collisions', () => {
  it('adopts the orphaned ReplicaSet of a re-created Deployment instead of creating another', async () => {
    const env = await start();
    await env.api.create(R.deployments, 'default', deployment('web', 2));
    await rolledOut(env);
    const [rs] = replicaSets(env);
    // Delete the Deployment leaving its ReplicaSet behind (what --cascade=orphan ends with).
    await env.api.delete(R.deployments, 'default', 'web');
    const cur = await env.api.get<ReplicaSet>(R.replicasets, 'default', rs?.metadata.name ?? '');
    await env.api.update(R.replicasets, 'default', { ...cur, metadata: { ...cur.metadata, ownerReferences: undefined } });
    await settle();
    const d2 = await env.api.create(R.deployments, 'default', deployment('web', 2));
    await rolledOut(env);
    const rss = replicaSets(env);
    expect(rss).toHaveLength(1);
    expect(rss[0]?.metadata.uid).toBe(rs?.metadata.uid);
    expect(rss[0]?.metadata.ownerReferences?.[0]?.uid).toBe(d2.metadata.uid);
    expect(pods(env)).toHaveLength(2);
  });

  it('bumps collisionCount when the hashed name is taken by a foreign ReplicaSet', async () => {
    const env = await start();
    const tmpl = deployment('web', 1).spec.template;
    const name = `web-${computeHash(tmpl)}`;
    await env.api.create<ReplicaSet>(R.replicasets, 'default', {
      metadata: { name, labels: { app: 'other' } },
      spec: { replicas: 0, selector: { matchLabels: { app: 'other' } }, template: { metadata: { labels: { app: 'other' } }, spec: { containers: [{ name: 'x', image: 'x' }] } } },
    });
    await env.api.create(R.deployments, 'default', deployment('web', 1));
    await settle();
    await env.clock.advance(1000);
    const d = await rolledOut(env);
    expect(d.status?.collisionCount).toBe(1);
    const ours = replicaSets(env).filter((r) => r.metadata.ownerReferences?.[0]?.uid === d.metadata.uid);
    expect(ours).toHaveLength(1);
    expect(ours[0]?.metadata.name).toBe(`web-${computeHash(tmpl, 1)}`);
  });
});

describe('deployment-controller proportional scaling', () => {
  it('spreads a scale-up over the old and new ReplicaSets of a stuck rollout', async () => {
    const env = await start({ kubelet: false });
    await env.api.create(R.deployments, 'default', deployment('web', 10, 'v1'));
    await settle();
    await edit(env, (d) => ((d.spec.template.spec.containers[0] as { image: string }).image = 'v2'));
    await settle(100);
    const size = (image: string) => replicaSets(env).find((r) => r.spec.template?.spec.containers[0]?.image === image)?.spec.replicas;
    // No pod is ever ready: old 10 → 8 (unavailable anyway), new grows to the 13-pod ceiling.
    expect([size('v1'), size('v2')]).toEqual([8, 5]);
    await edit(env, (d) => (d.spec.replicas = 20));
    await settle(100);
    // 25 allowed (20 + 25% surge), 12 more, split by each set's share: 8·25/13 → 15, 5·25/13 → 10.
    expect([size('v1'), size('v2')]).toEqual([15, 10]);
    expect(env.recorder.events.filter((e) => e.reason === 'ScalingReplicaSet').map((e) => e.message)).toContainEqual(
      expect.stringMatching(/^Scaled up replica set web-\w+ from 8 to 15$/),
    );
  });
});

describe('deployment util', () => {
  it.each([
    [10, '25%', '25%', 3, 2],
    [1, '25%', '25%', 1, 0],
    [10, 0, 0, 0, 1],
    [5, 2, '10%', 2, 0],
    [4, '50%', 1, 2, 1],
  ])('replicas %d surge %s unavailable %s → %d/%d', (replicas, surge, unavailable, wantSurge, wantUnavailable) => {
    const d = deployment('x', replicas, 'i', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } } });
    expect(resolveFenceposts(d)).toEqual({ surge: wantSurge, unavailable: wantUnavailable });
  });
  it('hashes templates stably and differently per collisionCount', () => {
    const t = deployment('x', 1).spec.template;
    expect(computeHash(t)).toBe(computeHash(structuredClone(t)));
    expect(computeHash(t, 1)).not.toBe(computeHash(t));
    expect(safeEncodeString('0123456789')).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{10}$/);
  });
});
