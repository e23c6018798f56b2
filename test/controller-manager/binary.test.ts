// The kube-controller-manager binary's contract: flag errors (exit 2 with usage), unknown controllers
// (exit 1 with Kubernetes' message), and /healthz (with the leaderElection check) and /metrics over HTTPS on
// --secure-port, with delegated authentication and authorization.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { FakeReviewer } from '@kemu/client/testing/fake-reviewer';
import { R } from '@kemu/api';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess } from '@kemu/base/testing/processes';
import { SHORT_LEASE, holderName, startEnv, waitFor, type Env } from './cluster.ts';
import { secureGet, testClientCA, type TestClientCA } from '../support/secure-port.ts';

const run = promisify(execFile);

describe('kube-controller-manager flags', () => {
  it('rejects an unknown flag with the usage and exit code 2', async () => {
    const p = startProcess('kcm-bad-flag', BIN.controllerManager, ['--bogus']);
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain('unknown flag: --bogus');
    expect(p.output()).toContain('--leader-elect-lease-duration duration');
  }, 30_000);

  it('exits 1 naming the file when the serving certificate cannot be read', async () => {
    const p = startProcess('kcm-bad-cert', BIN.controllerManager, ['--master=http://127.0.0.1:1', '--tls-cert-file=/nonexistent/kcm.pem', '--tls-private-key-file=/nonexistent/kcm-key.pem']);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('Error: unable to load server certificate "/nonexistent/kcm.pem": no such file or directory');
  }, 30_000);

  it('exits 1 when a controller cannot start (a --root-ca-file that does not exist), as StartControllers does', async () => {
    const env = await startEnv();
    try {
      const p = startProcess('kcm-bad-root-ca', BIN.controllerManager, [`--kubeconfig=${env.kubeconfig}`, '--secure-port=0', '--leader-elect=false', '--root-ca-file=/nonexistent/ca.pem']);
      expect(await p.exited).toBe(1);
      expect(p.output()).toContain('Error starting controllers: error parsing root-ca-file at /nonexistent/ca.pem: open /nonexistent/ca.pem: no such file or directory');
    } finally {
      await env.stop();
    }
  }, 60_000);

  it('rejects an unknown controller name like Kubernetes (exit 1)', async () => {
    const p = startProcess('kcm-bad-controller', BIN.controllerManager, ['--master=http://127.0.0.1:1', '--controllers=*,nope']);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('"nope" is not in the list of known controllers');
  }, 30_000);
});

describe('kube-controller-manager health and metrics', () => {
  let env: Env;
  let port: number;
  let ca: TestClientCA;
  let reviewer: FakeReviewer;
  beforeAll(async () => {
    env = await startEnv();
    ca = await testClientCA();
    reviewer = await new FakeReviewer().start();
    reviewer.tokens.set('prometheus-token', { username: 'system:serviceaccount:monitoring:prometheus', groups: ['system:serviceaccounts'] });
    reviewer.sar = (spec) => ({ allowed: spec.user === 'system:serviceaccount:monitoring:prometheus' && spec.nonResourceAttributes?.path === '/metrics' });
    const reviewKubeconfig = reviewer.writeKubeconfig(ca.dir);
    port = await freePort();
    const p = startProcess('kcm-health', BIN.controllerManager, [
      `--kubeconfig=${env.kubeconfig}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--client-ca-file=${ca.caFile}`,
      `--authentication-kubeconfig=${reviewKubeconfig}`,
      `--authorization-kubeconfig=${reviewKubeconfig}`,
      '--hostname-override=kcm-health',
      ...SHORT_LEASE,
    ]);
    env.managers.set('kcm-health', p);
    await waitFor('leader', async () => (await holderName(env.client)) === 'kcm-health', 30_000);
  }, 60_000);
  afterAll(async () => {
    await env?.stop();
    await reviewer?.stop();
    ca?.cleanup();
  });

  it('serves /healthz over HTTPS to anyone, with a leaderElection check', async () => {
    const h = await secureGet(`https://127.0.0.1:${port}/healthz`);
    expect(h.status).toBe(200);
    expect(h.body).toBe('ok');
    const v = await secureGet(`https://127.0.0.1:${port}/healthz?verbose`);
    expect(v.body).toContain('[+]leaderElection ok');
    // There is no plain-HTTP port any more, as in Kubernetes.
    await expect(request(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('serves /metrics to a system:masters certificate, with the leader gauge and controller queues', async () => {
    // Controllers start (and register their queues' series) only after leading and syncing their caches.
    const text = await waitFor(
      'serviceaccount workqueue metrics',
      async () => {
        const body = (await secureGet(`https://127.0.0.1:${port}/metrics`, { cred: ca.admin })).body;
        return /workqueue_adds_total\{name="serviceaccount-controller"\} \d+/.test(body) ? body : undefined;
      },
      30_000,
    );
    expect(text).toContain('leader_election_master_status{name="kube-controller-manager"} 1');
  });

  it('refuses /metrics to anonymous and unauthorized callers, and asks the apiserver about tokens', async () => {
    const anon = await secureGet(`https://127.0.0.1:${port}/metrics`);
    expect(anon.status).toBe(403);
    expect(JSON.parse(anon.body).message).toBe('forbidden: User "system:anonymous" cannot get path "/metrics"');
    const jane = await secureGet(`https://127.0.0.1:${port}/metrics`, { cred: ca.user });
    expect(JSON.parse(jane.body).message).toBe('forbidden: User "jane" cannot get path "/metrics"');
    expect((await secureGet(`https://127.0.0.1:${port}/metrics`, { token: 'prometheus-token' })).status).toBe(200);
    expect(reviewer.tokenReviews).toContain('prometheus-token');
    expect((await secureGet(`https://127.0.0.1:${port}/metrics`, { token: 'forged' })).status).toBe(401);
  });

  it('answers kubectl pointed at the port itself with the admin certificate (Go sends it: the CA is in the certificate request)', async () => {
    const certFile = path.join(ca.dir, 'admin.pem');
    const keyFile = path.join(ca.dir, 'admin-key.pem');
    fs.writeFileSync(certFile, ca.admin.cert);
    fs.writeFileSync(keyFile, ca.admin.key);
    const direct = ['--kubeconfig=/dev/null', `--server=https://127.0.0.1:${port}`, '--insecure-skip-tls-verify', `--client-certificate=${certFile}`, `--client-key=${keyFile}`];
    const kubectl = async (...args: string[]) => (await run('kubectl', args, { timeout: 60_000 })).stdout;
    expect(await kubectl(...direct, 'get', '--raw=/metrics')).toContain('leader_election_master_status{name="kube-controller-manager"} 1');
  });

  it("answers seed 003's `kubectl get --raw=https://localhost:10252/metrics` (kubectl sends only the path to its apiserver)", async () => {
    const text = await env.kubectl('get', '--raw=https://localhost:10252/metrics');
    expect(text).toContain('apiserver_request_total');
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
