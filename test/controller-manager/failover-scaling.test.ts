// While a Deployment scales up and then rolls out a new image, the leading kube-controller-manager is killed
// again and again (SIGKILL, then restarted as a follower). Every new leader starts from a freshly synced
// cache, so a watch never sees more pods than spec.replicas + maxSurge, and the Deployment converges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type Deployment } from '@kemu/api';
import { PodTracker, holderName, newHolderName, startEnv, waitFor, type Env } from './cluster.ts';

const NAMES = ['kcm-a', 'kcm-b', 'kcm-c'];
let env: Env;
let pods: PodTracker;

beforeAll(async () => {
  env = await startEnv();
  await Promise.all(NAMES.map((n) => env.startManager(n)));
  pods = new PodTracker(env.client, 'default', true);
  await waitFor('a leader', () => holderName(env.client), 30_000);
}, 60_000);
afterAll(async () => {
  pods?.stop();
  await env?.stop();
});

function deployment(replicas: number, image: string): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'chaos', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'chaos' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: { metadata: { labels: { app: 'chaos' } }, spec: { containers: [{ name: 'c', image }] } },
    },
  };
}

/** Kills the current leader n times, each time waiting for a new one and restarting the killed process. */
async function killLeaders(n: number, maxDelayMs = 1000): Promise<void> {
  for (let i = 0; i < n; i++) {
    const leader = await waitFor('a leader', () => holderName(env.client), 30_000, 50);
    await new Promise((r) => setTimeout(r, Math.random() * maxDelayMs));
    await env.managers.get(leader)?.kill('SIGKILL');
    await waitFor('a new leader', () => newHolderName(env.client, leader), 30_000, 50);
    await env.startManager(leader);
  }
}

async function converged(replicas: number, image: string): Promise<void> {
  await waitFor(
    `${replicas} pods of ${image}`,
    async () => {
      const live = pods.active('chaos-');
      const d = await env.client.get<Deployment>(R.deployments, 'default', 'chaos');
      return (
        live.length === replicas &&
        live.every((p) => p.spec.containers[0]?.image === image) &&
        d.status?.updatedReplicas === replicas &&
        d.status.availableReplicas === replicas &&
        (d.status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
      );
    },
    90_000,
    200,
  );
}

describe('leader kills while a Deployment scales', () => {
  it('never exceeds replicas + maxSurge and converges', async () => {
    let maxActive = 0;
    pods.onChange((t) => (maxActive = Math.max(maxActive, t.active('chaos-').length)));

    // Scale up in steps, killing the leader a moment after each change (mid-creation).
    await env.client.create(R.deployments, 'default', deployment(10, 'v1'));
    await killLeaders(1, 200);
    for (const n of [20, 30, 40]) {
      const cur = await env.client.get<Deployment>(R.deployments, 'default', 'chaos');
      await env.client.update(R.deployments, 'default', { ...cur, spec: { ...cur.spec, replicas: n } });
      await killLeaders(1, 200);
      expect(maxActive).toBeLessThanOrEqual(n);
    }
    await converged(40, 'v1');
    console.log(`scale to 40 under leader kills: at most ${maxActive} pods`);
    expect(maxActive).toBeLessThanOrEqual(40);

    maxActive = 0;
    const d = await env.client.get<Deployment>(R.deployments, 'default', 'chaos');
    (d.spec.template.spec.containers[0] as { image: string }).image = 'v2';
    await env.client.update(R.deployments, 'default', d);
    await killLeaders(3, 500);
    await converged(40, 'v2');
    console.log(`rolling update of 40 under leader kills: at most ${maxActive} pods (limit 50)`);
    expect(maxActive).toBeLessThanOrEqual(40 + 10);
  }, 240_000);
});
