// DefaultPreemption against a real apiserver: a high-priority pod that fits nowhere evicts a lower-priority
// pod, is nominated to its node (status.nominatedNodeName) and binds there once the victim is gone; a pod
// with preemptionPolicy: Never evicts nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type KubeObject, type Pod } from '@kemu/api';
import { waitFor } from '@kemu/base/testing/processes';
import { createNode, createPod, eventsFor, podSpec, startEnv, waitBound, type Env } from './cluster.ts';

let env: Env;

const priorityClass = (name: string, value: number, preemptionPolicy?: string): KubeObject => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  value,
  ...(preemptionPolicy ? { preemptionPolicy } : {}),
});

beforeAll(async () => {
  env = await startEnv();
  await env.client.create(R.priorityclasses, undefined, priorityClass('high', 1000));
  await env.client.create(R.priorityclasses, undefined, priorityClass('high-never', 1000, 'Never'));
  await createNode(env.client, 'n1', { cpu: '1' });
  env.startScheduler('scheduler-0', ['--leader-elect=false']);
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

describe('preemption', () => {
  it('preemptionPolicy Never evicts nothing and says so', async () => {
    await createPod(env.client, podSpec('victim', { cpu: '800m' }));
    expect(await waitBound(env.client, 'victim')).toBe('n1');
    await createPod(env.client, podSpec('polite', { cpu: '500m', priorityClassName: 'high-never' }));
    const ev = await waitFor('FailedScheduling', async () => (await eventsFor(env.client, 'polite')).find((e) => e.reason === 'FailedScheduling'));
    expect(ev.message).toBe('0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never..');
    const victim = await env.client.get<Pod>(R.pods, 'default', 'victim');
    expect(victim.metadata.deletionTimestamp).toBeUndefined();
    await env.client.delete(R.pods, 'default', 'polite', { gracePeriodSeconds: 0 });
  });

  it('a higher-priority pod evicts the lower one, is nominated, and binds once the victim is gone', async () => {
    await createPod(env.client, podSpec('vip', { cpu: '500m', priorityClassName: 'high' }));
    const nominated = await waitFor('nominatedNodeName', async () => (await env.client.get<Pod>(R.pods, 'default', 'vip')).status?.nominatedNodeName);
    expect(nominated).toBe('n1');
    // The victim is being deleted (no kubelet here to finish it, so finish it like one would).
    await waitFor('victim deleted or terminating', async () => {
      try {
        const v = await env.client.get<Pod>(R.pods, 'default', 'victim');
        return !!v.metadata.deletionTimestamp;
      } catch {
        return true;
      }
    });
    await env.client.delete(R.pods, 'default', 'victim', { gracePeriodSeconds: 0 }).catch(() => undefined);
    expect(await waitBound(env.client, 'vip', 15_000)).toBe('n1');
    const pre = await waitFor('Preempted event', async () => (await eventsFor(env.client, 'victim')).find((e) => e.reason === 'Preempted'));
    expect(pre.message).toMatch(/^Preempted by pod .+ on node n1$/);
  });
});
