// Seed 003 section 8 in the lab, end to end: `kemu up` bootstraps every worker with the token of
// bootstrap-kubelet.kubeconfig — `kubectl get csr` shows each node's CSR requested by system:bootstrap:<id>,
// Approved,Issued; the nodes are Ready with certificates the controller-manager signed; `kemu join` adds a Ready
// node through its own token; a restart reuses the kubelets' certificates (no new CSR).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { labPkiFiles, readBootstrapToken } from '@kemu/kemu';
import { startLab, missing, hasKubectl, type Lab } from '../lab/lab.ts';

const skip =
  missing('apiserver', 'controller-manager', 'scheduler', 'worker') ??
  (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/e2e/tls-bootstrap-lab.test.ts: ${skip}`);

interface Csr {
  metadata: { name: string };
  spec: { signerName: string; username: string; usages: string[] };
  status?: { certificate?: string; conditions?: { type: string; status: string }[] };
}

describe.skipIf(skip)('kemu up bootstraps its workers (seed 003 section 8)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-tls-bootstrap-'));
  const labs: Lab[] = [];
  let lab: Lab;
  let tokenId = '';
  const up = async () => {
    const l = await startLab({ dir, apiservers: 1, controllerManagers: 1, schedulers: 1, workers: 2 });
    labs.push(l);
    await waitFor('kemu.json from this kemu up', () => {
      try {
        return l.state().supervisorPid === l.proc.child.pid;
      } catch {
        return false;
      }
    }, 30_000, 100);
    await l.waitRunning(undefined, 120_000);
    return l;
  };
  const nodesReady = async (names: string[]) =>
    waitFor(`nodes ${names.join(', ')} Ready`, async () => {
      const r = await lab.kubectl('get', 'nodes', '--no-headers');
      return r.code === 0 && names.every((n) => new RegExp(`^${n}\\s+Ready\\s`, 'm').test(r.stdout));
    }, 90_000, 300);
  const csrs = async () => (await lab.kubectlJson<{ items: Csr[] }>('get', 'csr')).items;

  beforeAll(async () => {
    lab = await up();
    tokenId = (readBootstrapToken(labPkiFiles(dir).bootstrapKubeconfig) ?? '').split('.')[0] ?? '';
  }, 180_000);
  afterAll(async () => {
    for (const l of labs) await l.down();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('says the workers bootstrap, and issues no kubelet certificate itself', async () => {
    expect(lab.proc.output()).toContain('kubelets bootstrap with the token in bootstrap-kubelet.kubeconfig');
    expect(tokenId).toMatch(/^[a-z0-9]{6}$/);
    expect(fs.existsSync(path.join(dir, 'pki', 'kubelet-worker-0.pem'))).toBe(false);
  });

  it('brings both nodes Ready, each through a node-client CSR from system:bootstrap:<id>, Approved,Issued', async () => {
    await nodesReady(['worker-0', 'worker-1']);
    const mine = (await csrs()).filter((c) => c.spec.username === `system:bootstrap:${tokenId}`);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    for (const c of mine) {
      expect(c.spec.signerName).toBe('kubernetes.io/kube-apiserver-client-kubelet');
      expect(c.status?.conditions?.find((x) => x.type === 'Approved')?.status).toBe('True');
      expect(c.status?.certificate).toBeTruthy();
    }
    const table = await lab.kubectl('get', 'csr');
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$/);
    const rows = table.stdout.split('\n').filter((l) => l.includes(`system:bootstrap:${tokenId}`));
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const r of rows) expect(r).toMatch(/kubernetes\.io\/kube-apiserver-client-kubelet\s+system:bootstrap:[a-z0-9]{6}\s+<none>\s+Approved,Issued$/);
  }, 120_000);

  it("gives each kubelet a certificate for system:node:<name> signed by the lab's CA, in its --cert-dir, and a kubeconfig it wrote", async () => {
    const ca = new X509Certificate(fs.readFileSync(labPkiFiles(dir).ca));
    for (const node of ['worker-0', 'worker-1']) {
      const pem = fs.readFileSync(path.join(labPkiFiles(dir).kubeletCertDir(node), 'kubelet-client-current.pem'), 'utf8');
      const cert = new X509Certificate(pem.slice(pem.indexOf('-----BEGIN CERTIFICATE-----')));
      expect(cert.subject).toContain(`CN=system:node:${node}`);
      expect(cert.subject).toContain('O=system:nodes');
      expect(cert.checkIssued(ca)).toBe(true);
      const who = await lab.kubectl(`--kubeconfig=${labPkiFiles(dir).kubeletKubeconfig(node)}`, 'auth', 'whoami');
      expect(who.stdout, who.stderr).toMatch(new RegExp(`Username\\s+system:node:${node}`));
    }
  });

  it('runs the bootstrap controllers: cluster-info signed for the token, kube-root-ca.crt published', async () => {
    await waitFor('cluster-info signed', async () => {
      const r = await lab.kubectl('-n', 'kube-public', 'get', 'configmap', 'cluster-info', '-o', `jsonpath={.data.jws-kubeconfig-${tokenId}}`);
      return r.code === 0 && r.stdout.length > 0;
    }, 30_000, 300);
    const ca = await lab.kubectl('-n', 'default', 'get', 'configmap', 'kube-root-ca.crt', '-o', 'jsonpath={.data.ca\\.crt}');
    expect(ca.stdout.trim()).toBe(fs.readFileSync(labPkiFiles(dir).ca, 'utf8').trim());
  });

  it('kemu join adds a worker that bootstraps with its own token and becomes Ready', async () => {
    const r = await lab.kemu('join', '--wait', '90s');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Certificate signing request was sent to apiserver and a response was received.');
    const id = /created bootstrap token ([a-z0-9]{6})/.exec(r.stdout)?.[1];
    expect(id).toBeTruthy();
    await nodesReady(['worker-2']);
    const joined = (await csrs()).filter((c) => c.spec.username === `system:bootstrap:${id}`);
    expect(joined).toHaveLength(1);
    expect(joined[0]?.status?.certificate).toBeTruthy();
  }, 120_000);

  it('reuses the kubelets\' certificates on a restart of kemu up: Ready again, no new CSR', async () => {
    const before = (await csrs()).length;
    await lab.kemu('down');
    await lab.proc.exited;
    lab = await up();
    await nodesReady(['worker-0', 'worker-1']);
    expect((await csrs()).length).toBe(before);
  }, 240_000);
});
