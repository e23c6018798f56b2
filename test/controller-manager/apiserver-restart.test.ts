// The apiserver is killed and restarted (same port, same data) while a Deployment scales up: requests in
// flight at the kill have unknown outcomes, informers must resume, and the controllers must still never make
// more pods than asked for, and converge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type Deployment } from '@kemu/api';
import { PodTracker, holderName, startEnv, waitFor, type Env } from './cluster.ts';

// Long enough for the leader to keep its Lease across an apiserver restart.
const LEASE = ['--leader-elect-lease-duration=20s', '--leader-elect-renew-deadline=15s', '--leader-elect-retry-period=1s'];

let env: Env;
let pods: PodTracker;
beforeAll(async () => {
  env = await startEnv();
  await env.startManager('kcm-0', LEASE);
  await waitFor('a leader', () => holderName(env.client), 30_000);
  pods = new PodTracker(env.client, 'default', true);
}, 60_000);
afterAll(async () => {
  pods?.stop();
  await env?.stop();
});

describe('apiserver restart during scale-up', () => {
  it('never exceeds spec.replicas and converges', async () => {
    let maxActive = 0;
    pods.onChange((t) => (maxActive = Math.max(maxActive, t.active('restart-').length)));
    const d: Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'restart', namespace: 'default' },
      spec: {
        replicas: 60,
        selector: { matchLabels: { app: 'restart' } },
        template: { metadata: { labels: { app: 'restart' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
    };
    await env.client.create(R.deployments, 'default', d);
    await waitFor('scale-up under way', () => pods.active('restart-').length >= 5, 30_000, 10);
    await env.restartApiserver();
    let last = '';
    await waitFor(
      '60 available pods',
      async () => {
        const cur = await env.client.get<Deployment>(R.deployments, 'default', 'restart');
        last = `tracked ${pods.active('restart-').length}, status ${JSON.stringify(cur.status)}`;
        return pods.active('restart-').length === 60 && cur.status?.availableReplicas === 60;
      },
      90_000,
      200,
    ).catch((e: unknown) => {
      const out = env.managers.get('kcm-0')?.output() ?? '';
      throw new Error(`${String(e)}; ${last}; controller-manager log tail:\n${out.split('\n').slice(-30).join('\n')}`);
    });
    // A moment later, still exactly 60 (no late duplicates).
    await new Promise((r) => setTimeout(r, 2000));
    const all = await env.client.list(R.pods, 'default', { labelSelector: 'app=restart' });
    console.log(`apiserver restart during scale-up: at most ${maxActive} pods seen by the watch`);
    expect(all.items).toHaveLength(60);
    expect(maxActive).toBeLessThanOrEqual(60);
  }, 150_000);
});
