// disruption-controller: PDB status from the pods it selects and the scale of their controllers.
import { afterEach, describe, expect, it } from 'vitest';
import { R, formatTime, type Pod, type PodDisruptionBudget, type ReplicaSet } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../../testing/context.ts';
import { DisruptionController, scaledValue } from './index.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

async function start() {
  const env = fakeContext();
  envs.push(env);
  const c = new DisruptionController(env.ctx);
  env.informers.start(env.abort.signal);
  void c.run();
  await settle();
  return env;
}

async function pod(env: FakeEnv, name: string, ready: boolean, owner?: ReplicaSet): Promise<Pod> {
  return env.api.create<Pod>(R.pods, 'default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      labels: { app: 'web' },
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true }] } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  } as Pod);
}

const budget = (spec: PodDisruptionBudget['spec']): PodDisruptionBudget => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'pdb', namespace: 'default', generation: 1 },
  spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
});

const status = async (env: FakeEnv) => (await env.api.get<PodDisruptionBudget>(R.poddisruptionbudgets, 'default', 'pdb')).status;

describe('disruption-controller', () => {
  it('scales percentages up as intstr does', () => {
    expect(scaledValue('50%', 3, true)).toBe(2);
    expect(scaledValue('50%', 3, false)).toBe(1);
    expect(scaledValue(4, 10, true)).toBe(4);
  });

  it('counts healthy pods against an integer minAvailable', async () => {
    const env = await start();
    await pod(env, 'a', true);
    await pod(env, 'b', true);
    await pod(env, 'c', false);
    await env.api.create(R.poddisruptionbudgets, 'default', budget({ minAvailable: 1 }));
    await settle();
    expect(await status(env)).toMatchObject({ currentHealthy: 2, desiredHealthy: 1, expectedPods: 3, disruptionsAllowed: 1, observedGeneration: 1 });
    expect((await status(env))?.conditions).toMatchObject([{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '' }]);
  });

  it('uses the scale of the pods controller for maxUnavailable, and drops a disrupted pod from the healthy ones', async () => {
    const env = await start();
    const rs = await env.api.create<ReplicaSet>(R.replicasets, 'default', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 4, selector: { matchLabels: { app: 'web' } } },
    });
    await pod(env, 'a', true, rs);
    await pod(env, 'b', true, rs);
    await pod(env, 'c', true, rs);
    await env.api.create(R.poddisruptionbudgets, 'default', budget({ maxUnavailable: '25%' }));
    await settle();
    expect(await status(env)).toMatchObject({ currentHealthy: 3, desiredHealthy: 3, expectedPods: 4, disruptionsAllowed: 0 });
    expect((await status(env))?.conditions).toMatchObject([{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }]);
    const cur = await env.api.get<PodDisruptionBudget>(R.poddisruptionbudgets, 'default', 'pdb');
    await env.api.updateStatus(R.poddisruptionbudgets, 'default', { ...cur, status: { ...cur.status!, disruptedPods: { a: formatTime(env.clock.now()) } } });
    await settle();
    expect(await status(env)).toMatchObject({ currentHealthy: 2, desiredHealthy: 3, disruptionsAllowed: 0, disruptedPods: { a: expect.any(String) } });
  });

  it('fails safe when a percentage meets a pod whose controller is gone', async () => {
    const env = await start();
    await env.api.create<Pod>(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'x', namespace: 'default', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'gone', uid: 'u1', controller: true }] },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    } as Pod);
    await env.api.create(R.poddisruptionbudgets, 'default', budget({ minAvailable: '50%' }));
    await settle();
    expect(await status(env)).toMatchObject({ disruptionsAllowed: 0, conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: 'found no controllers for pod "x"' }] });
    expect(env.recorder.events.map((e) => e.reason)).toContain('CalculateExpectedPodCountFailed');
  });

  it('sets a DisruptionTarget condition still on a live pod after 2 minutes back to False; a terminating pod keeps it', async () => {
    const env = await start();
    const target = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastTransitionTime: formatTime(env.clock.now()) } as const;
    for (const name of ['live', 'going']) {
      const p = await pod(env, name, true);
      await env.api.updateStatus(R.pods, 'default', { ...p, status: { ...p.status, conditions: [...(p.status?.conditions ?? []), target] } });
    }
    const going = await env.api.get<Pod>(R.pods, 'default', 'going');
    await env.api.update(R.pods, 'default', { ...going, metadata: { ...going.metadata, finalizers: ['example.com/hold'] } });
    await env.api.delete(R.pods, 'default', 'going');
    await settle();
    const cond = async (n: string) => (await env.api.get<Pod>(R.pods, 'default', n)).status?.conditions?.find((c) => c.type === 'DisruptionTarget');
    await env.clock.advance(119_000);
    await settle();
    expect((await cond('live'))?.status).toBe('True');
    await env.clock.advance(1_000);
    await settle();
    expect(await cond('live')).toEqual({ ...target, status: 'False', lastTransitionTime: formatTime(env.clock.now()) });
    expect((await cond('going'))?.status).toBe('True');
  });
});
