// The kube-controller-manager binary's contract: flag errors (exit 2 with usage), unknown controllers
// (exit 1 with Kubernetes' message), and /healthz (with the leaderElection check) and /metrics on --secure-port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { R } from '@kemu/api';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess } from '@kemu/base/testing/processes';
import { SHORT_LEASE, holderName, startEnv, waitFor, type Env } from './cluster.ts';

describe('kube-controller-manager flags', () => {
  it('rejects an unknown flag with the usage and exit code 2', async () => {
    const p = startProcess('kcm-bad-flag', BIN.controllerManager, ['--bogus']);
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain('unknown flag: --bogus');
    expect(p.output()).toContain('--leader-elect-lease-duration duration');
  }, 30_000);

  it('rejects an unknown controller name like Kubernetes (exit 1)', async () => {
    const p = startProcess('kcm-bad-controller', BIN.controllerManager, ['--master=http://127.0.0.1:1', '--controllers=*,nope']);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('"nope" is not in the list of known controllers');
  }, 30_000);
});

describe('kube-controller-manager health and metrics', () => {
  let env: Env;
  let port: number;
  beforeAll(async () => {
    env = await startEnv();
    port = await freePort();
    const p = startProcess('kcm-health', BIN.controllerManager, [`--kubeconfig=${env.kubeconfig}`, '--bind-address=127.0.0.1', `--secure-port=${port}`, '--hostname-override=kcm-health', ...SHORT_LEASE]);
    env.managers.set('kcm-health', p);
    await waitFor('leader', async () => (await holderName(env.client)) === 'kcm-health', 30_000);
  }, 60_000);
  afterAll(async () => env?.stop());

  it('serves /healthz with a leaderElection check and /metrics with the leader gauge', async () => {
    const h = await request(`http://127.0.0.1:${port}/healthz`);
    expect(h.statusCode).toBe(200);
    expect(await h.body.text()).toBe('ok');
    const v = await request(`http://127.0.0.1:${port}/healthz?verbose`);
    expect(await v.body.text()).toContain('[+]leaderElection ok');
    // Controllers start (and register their queues' series) only after leading and syncing their caches.
    const text = await waitFor(
      'serviceaccount workqueue metrics',
      async () => {
        const body = await (await request(`http://127.0.0.1:${port}/metrics`)).body.text();
        return /workqueue_adds_total\{name="serviceaccount-controller"\} \d+/.test(body) ? body : undefined;
      },
      30_000,
    );
    expect(text).toContain('leader_election_master_status{name="kube-controller-manager"} 1');
  });
});

describe('kube-controller-manager --leader-elect=false', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
    env.managers.set('kcm-solo', startProcess('kcm-solo', BIN.controllerManager, [`--kubeconfig=${env.kubeconfig}`, '--secure-port=0', '--leader-elect=false']));
  }, 60_000);
  afterAll(async () => env?.stop());

  it('runs the controllers without taking a Lease', async () => {
    await env.client.create(R.replicasets, 'default', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'solo' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'solo' } }, template: { metadata: { labels: { app: 'solo' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    });
    await waitFor('2 pods', async () => (await env.client.list(R.pods, 'default', { labelSelector: 'app=solo' })).items.length === 2, 30_000, 100);
    expect(await holderName(env.client)).toBe('');
  }, 60_000);
});
