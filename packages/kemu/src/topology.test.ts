import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseKubeconfig } from '@kemu/client';
import {
  kubeletBootstrapMode,
  labApiserverKubeletFlags,
  labControllerManagerIdentityFlags,
  labKubeletAuthFlags,
  labKubeletBootstrapFlags,
  planWorker,
  type TopologyOptions,
} from './topology.ts';
import { labPkiFiles } from './lab-pki.ts';
import { bootstrapKubeconfigYaml, readBootstrapToken } from './lab-bootstrap.ts';

const files = labPkiFiles('/lab');

describe('TLS bootstrapping flags', () => {
  it("gives a bootstrapping kubelet seed 003's flags: the bootstrap kubeconfig, its own kubeconfig and cert dir, rotation", () => {
    expect(labKubeletBootstrapFlags(files, 'worker-1')).toEqual([
      '--bootstrap-kubeconfig=/lab/bootstrap-kubelet.kubeconfig',
      '--kubeconfig=/lab/kubelet-worker-1.kubeconfig',
      '--cert-dir=/lab/pki/kubelet-worker-1',
      '--rotate-certificates=true',
      '--proxy-kubeconfig=/lab/kube-proxy.kubeconfig',
    ]);
    expect(labKubeletBootstrapFlags(files, 'worker-5', '/lab/bootstrap-kubelet-worker-5.kubeconfig')[0]).toBe('--bootstrap-kubeconfig=/lab/bootstrap-kubelet-worker-5.kubeconfig');
  });

  it('guards every kubelet API with the cluster CA, TokenReview, no anonymous requests and SubjectAccessReview', () => {
    expect(labKubeletAuthFlags(files)).toEqual(['--client-ca-file=/lab/pki/ca.pem', '--anonymous-auth=false', '--authentication-token-webhook=true', '--authorization-mode=Webhook']);
  });

  it("gives the controller-manager seed 003's signing and identity flags", () => {
    expect(labControllerManagerIdentityFlags(files)).toEqual([
      '--root-ca-file=/lab/pki/ca.pem',
      '--cluster-signing-cert-file=/lab/pki/ca.pem',
      '--cluster-signing-key-file=/lab/pki/ca-key.pem',
      '--service-account-private-key-file=/lab/pki/sa.key',
      '--controllers=*,bootstrapsigner,tokencleaner',
    ]);
  });

  it("gives every apiserver seed 003's kubelet client flags: apiserver.pem, InternalIP first", () => {
    expect(labApiserverKubeletFlags(files)).toEqual([
      '--kubelet-client-certificate=/lab/pki/apiserver.pem',
      '--kubelet-client-key=/lab/pki/apiserver-key.pem',
      '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
    ]);
  });

  it('bootstraps only when asked and when a controller-manager signs', () => {
    expect(kubeletBootstrapMode(false, 3).bootstrap).toBe(false);
    expect(kubeletBootstrapMode(true, 0)).toEqual({ bootstrap: false, why: expect.stringContaining('--controller-managers=0') });
    expect(kubeletBootstrapMode(true, 1).bootstrap).toBe(true);
  });

  it('plans a worker (as kemu join does) with the bootstrap flags or the kubeconfig kemu issued', async () => {
    const o: TopologyOptions = {
      dataDir: '/lab', address: '127.0.77.1', port: 6443, apiservers: 1, controllerManagers: 1, schedulers: 1, workers: 0, kubeletBootstrap: true,
      leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, nodeMonitorGracePeriodMs: 50_000, nodeMonitorPeriodMs: 5_000, defaultNotReadyTolerationSeconds: 300, defaultUnreachableTolerationSeconds: 300,
      nodeStatusUpdateFrequencyMs: 10_000, nodeLeaseDurationSeconds: 40, maxPods: 110, imagePullDelayMs: 0, v: 0, loggingFormat: 'text',
    };
    const w = await planWorker(o, 4, 'worker-4', new Set());
    expect(w).toMatchObject({ name: 'worker-4', kind: 'worker', address: '127.0.77.104' });
    expect(w.args).toEqual(expect.arrayContaining([...labKubeletBootstrapFlags(files, 'worker-4'), '--hostname-override=worker-4', '--node-ip=127.0.77.104']));
    // Joined or not, every kubelet guards its API as the lab's do and is probed on its open healthz port.
    expect(w.args).toEqual(expect.arrayContaining([...labKubeletAuthFlags(files), '--healthz-bind-address=127.0.77.104']));
    expect(w.healthUrl).toMatch(/^http:\/\/127\.0\.77\.104:\d+\/healthz$/);
    const pre = await planWorker({ ...o, kubeletBootstrap: false }, 5, 'worker-5', new Set());
    expect(pre.args).toContain('--kubeconfig=/lab/kubelet-worker-5.kubeconfig');
    expect(pre.args.some((a) => a.startsWith('--bootstrap-kubeconfig'))).toBe(false);    // kemu up --image-catalog: each file is passed on to the kubelets.
    const cat = await planWorker({ ...o, imageCatalogs: ['/tmp/a.yaml', '/tmp/b.json'] }, 6, 'worker-6', new Set());
    expect(cat.args.filter((a) => a.startsWith('--image-catalog'))).toEqual(['--image-catalog=/tmp/a.yaml', '--image-catalog=/tmp/b.json']);
  });
});

describe('bootstrap-kubelet.kubeconfig', () => {
  const yaml = bootstrapKubeconfigYaml('https://127.0.0.1:6443', 'CA PEM\n', 'c8ad9c.2e4d610cf3e7426e');

  it("is what seed 003's kubectl config set-cluster/set-credentials/set-context/use-context write", () => {
    expect(parse(yaml)).toEqual({
      apiVersion: 'v1',
      clusters: [{ cluster: { 'certificate-authority-data': Buffer.from('CA PEM\n').toString('base64'), server: 'https://127.0.0.1:6443' }, name: 'kubernetes' }],
      contexts: [{ context: { cluster: 'kubernetes', user: 'tls-bootstrap-token-user' }, name: 'tls-bootstrap-token-user@kubernetes' }],
      'current-context': 'tls-bootstrap-token-user@kubernetes',
      kind: 'Config',
      preferences: {},
      users: [{ name: 'tls-bootstrap-token-user', user: { token: 'c8ad9c.2e4d610cf3e7426e' } }],
    });
  });

  it("loads through the client's kubeconfig loader: server, the embedded CA, the bearer token", () => {
    const cfg = parseKubeconfig(yaml, '/');
    expect(cfg.server).toBe('https://127.0.0.1:6443');
    expect(cfg.caData?.toString()).toBe('CA PEM\n');
    expect(cfg.token).toBe('c8ad9c.2e4d610cf3e7426e');
    expect(cfg.certData).toBeUndefined();
  });

  it('gives its token back (and nothing for a missing or token-less file)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-bootstrap-'));
    try {
      fs.writeFileSync(path.join(dir, 'b.kubeconfig'), yaml);
      expect(readBootstrapToken(path.join(dir, 'b.kubeconfig'))).toBe('c8ad9c.2e4d610cf3e7426e');
      expect(readBootstrapToken(path.join(dir, 'missing'))).toBeUndefined();
      fs.writeFileSync(path.join(dir, 'c.kubeconfig'), yaml.replace('c8ad9c.2e4d610cf3e7426e', 'not-a-token'));
      expect(readBootstrapToken(path.join(dir, 'c.kubeconfig'))).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
