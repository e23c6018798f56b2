// TLS bootstrapping end to end against a real apiserver (bootstrap tokens, Node,RBAC, NodeRestriction): the
// kubelet asks with its bootstrap token, the test signs as the controller-manager would, and the kubelet stores
// its certificate where a real kubelet does, writes --kubeconfig, and only then registers its Node.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type CertificateSigningRequest, type Node, type Pod } from '@kemu/api';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { RestClient, loadClientConfig } from '@kemu/client';
import { parseCertificates, parseCsr } from '@kemu/pki';
import { approveAndSign, runSigner, startBootstrapCluster, type BootstrapCluster } from './testing.ts';

let c: BootstrapCluster;
const procs: Proc[] = [];

beforeAll(async () => {
  c = await startBootstrapCluster('kemu-kubelet-boot-');
}, 60_000);
afterAll(async () => {
  await Promise.all(procs.map((p) => p.kill('SIGKILL')));
  await c?.close();
});

function kubelet(name: string, args: string[]): Proc {
  const p = startProcess(name, BIN.kubelet, [`--hostname-override=${name}`, '--secure-port=0', ...args]);
  procs.push(p);
  return p;
}

const csrs = async () => (await c.admin.list<CertificateSigningRequest>(R.certificatesigningrequests)).items;

describe('TLS bootstrapping', () => {
  it('asks with a node-csr, stores kubelet-client-current.pem, writes --kubeconfig and registers as system:node:<name>', async () => {
    const signer = runSigner(c, { signers: ['kubernetes.io/kube-apiserver-client-kubelet'], lifetimeMs: 3600_000 });
    const certDir = path.join(c.dir, 'boot-0-pki');
    const kubeconfig = path.join(c.dir, 'boot-0.kubeconfig');
    const p = kubelet('boot-0', [`--bootstrap-kubeconfig=${c.bootstrapKubeconfig()}`, `--kubeconfig=${kubeconfig}`, `--cert-dir=${certDir}`, '--v=2']);
    try {
      const node = await waitFor('node boot-0', () => c.admin.get<Node>(R.nodes, undefined, 'boot-0').catch(() => undefined), 30_000);
      expect(node.metadata.labels?.['kubernetes.io/hostname']).toBe('boot-0');

      const [csr] = (await csrs()).filter((x) => x.metadata.name?.startsWith('node-csr-'));
      expect(csr?.metadata.name).toMatch(/^node-csr-[A-Za-z0-9_-]{43}$/);
      expect(csr?.spec.signerName).toBe('kubernetes.io/kube-apiserver-client-kubelet');
      expect(csr?.spec.usages).toEqual(['digital signature', 'key encipherment', 'client auth']);
      const req = await parseCsr(Buffer.from(csr?.spec.request ?? '', 'base64').toString('utf8'));
      expect(req.subject).toMatchObject({ CN: 'system:node:boot-0', O: ['system:nodes'] });

      const current = path.join(certDir, 'kubelet-client-current.pem');
      expect(fs.lstatSync(current).isSymbolicLink()).toBe(true);
      expect(path.basename(fs.readlinkSync(current))).toMatch(/^kubelet-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);
      expect((fs.statSync(current).mode & 0o777).toString(8)).toBe('600');
      const text = fs.readFileSync(current, 'utf8');
      expect(text).toContain('-----BEGIN CERTIFICATE-----');
      expect(text).toMatch(/-----BEGIN (EC )?PRIVATE KEY-----/);
      expect(parseCertificates(text)[0]?.subject).toBe('O=system:nodes, CN=system:node:boot-0');
      expect(fs.existsSync(path.join(certDir, 'kubelet-client.key.tmp'))).toBe(false);

      const written = fs.readFileSync(kubeconfig, 'utf8');
      expect(written).toContain(`client-certificate: ${current}`);
      expect(written).toContain(`client-key: ${current}`);
      expect(written).toContain('current-context: default-context');
      expect(loadClientConfig({ kubeconfig }).server).toBe(c.url);

      // The Lease is renewed with the node's own certificate (NodeRestriction lets only system:node:boot-0 do it).
      await waitFor('lease', () => c.admin.get(R.leases, 'kube-node-lease', 'boot-0').catch(() => undefined), 20_000);

      // Its pod's projected token is asked for with the node's identity (the Node authorizer and NodeRestriction let it).
      await c.admin.create(R.serviceaccounts, 'default', { metadata: { name: 'default' } }).catch(() => undefined);
      const pod = await c.admin.create<Pod>(R.pods, 'default', { metadata: { name: 'with-token' }, spec: { nodeName: 'boot-0', containers: [{ name: 'c', image: 'nginx' }] } } as Pod);
      expect(pod.spec.volumes?.[0]?.name).toMatch(/^kube-api-access-/);
      await waitFor('token fetched', () => /"Fetched service account token" pod="default\/with-token" volume="kube-api-access-/.test(p.output()), 20_000);
      expect(p.output()).not.toContain('failed to fetch token');
    } catch (e) {
      console.log(p.output().slice(-4000), JSON.stringify(await csrs()).slice(0, 3000));
      throw e;
    } finally {
      signer.stop();
      await p.kill('SIGTERM');
    }

    // A restart with a valid --kubeconfig asks for nothing.
    const before = (await csrs()).length;
    const again = kubelet('boot-0', [`--bootstrap-kubeconfig=${c.bootstrapKubeconfig()}`, `--kubeconfig=${kubeconfig}`, `--cert-dir=${certDir}`, '--v=2']);
    await waitFor('skipped bootstrap', () => again.output().includes('Kubeconfig exists and is valid, skipping bootstrap'), 20_000);
    await again.kill('SIGTERM');
    expect((await csrs()).length).toBe(before);
  }, 60_000);

  it('the bootstrap identity may ask for certificates and nothing else', async () => {
    const boot = new RestClient(loadClientConfig({ kubeconfig: c.bootstrapKubeconfig() }), { maxRetries: 0 });
    try {
      await expect(boot.list(R.pods)).rejects.toMatchObject({
        code: 403,
        message: 'pods is forbidden: User "system:bootstrap:abcdef" cannot list resource "pods" in API group "" at the cluster scope',
      });
      await expect(boot.create(R.nodes, undefined, { metadata: { name: 'sneaky' } })).rejects.toMatchObject({ code: 403 });
      await expect(boot.list(R.certificatesigningrequests)).resolves.toMatchObject({ kind: 'CertificateSigningRequestList' });
    } finally {
      await boot.close();
    }
  });

  it('an unknown bootstrap token: 401, logged as the kubelet logs it, retried with back-off; no CSR, no Node', async () => {
    const p = kubelet('boot-bad', [`--bootstrap-kubeconfig=${c.bootstrapKubeconfig('abcdef.ffffffffffffffff')}`, `--kubeconfig=${path.join(c.dir, 'bad.kubeconfig')}`, `--cert-dir=${path.join(c.dir, 'bad-pki')}`]);
    await waitFor('two attempts', () => p.output().split('failed to run Kubelet: cannot create certificate signing request: Unauthorized').length > 2, 20_000);
    expect(p.child.exitCode).toBe(null);
    await expect(c.admin.get(R.nodes, undefined, 'boot-bad')).rejects.toMatchObject({ code: 404 });
    expect(fs.existsSync(path.join(c.dir, 'bad.kubeconfig'))).toBe(false);
    await p.kill('SIGTERM');
  }, 30_000);

  it('--node-count: each node its own CSR, certificate and identity', async () => {
    const signer = runSigner(c, { signers: ['kubernetes.io/kube-apiserver-client-kubelet'], lifetimeMs: 3600_000 });
    const certDir = path.join(c.dir, 'fleet-pki');
    const p = kubelet('fleet', [`--bootstrap-kubeconfig=${c.bootstrapKubeconfig()}`, `--kubeconfig=${path.join(c.dir, 'fleet.kubeconfig')}`, `--cert-dir=${certDir}`, '--node-count=3']);
    try {
      for (const n of ['fleet-0', 'fleet-1', 'fleet-2']) {
        await waitFor(`lease ${n}`, () => c.admin.get(R.leases, 'kube-node-lease', n).catch(() => undefined), 30_000);
        const cert = parseCertificates(fs.readFileSync(path.join(certDir, n, 'kubelet-client-current.pem'), 'utf8'))[0];
        expect(cert?.subject).toBe(`O=system:nodes, CN=system:node:${n}`);
      }
      const subjects = await Promise.all((await csrs()).map(async (x) => (await parseCsr(Buffer.from(x.spec.request, 'base64').toString('utf8'))).subject.CN));
      expect(subjects.filter((s) => s?.startsWith('system:node:fleet-')).sort()).toEqual(['system:node:fleet-0', 'system:node:fleet-1', 'system:node:fleet-2']);
    } finally {
      signer.stop();
      await p.kill('SIGTERM');
    }
  }, 60_000);

  it('--node-count: a node starts as soon as its own certificate is issued, not when all are', async () => {
    const certDir = path.join(c.dir, 'trio-pki');
    const p = kubelet('trio', [`--bootstrap-kubeconfig=${c.bootstrapKubeconfig()}`, `--kubeconfig=${path.join(c.dir, 'trio.kubeconfig')}`, `--cert-dir=${certDir}`, '--node-count=3', '--node-status-update-frequency=1s']);
    const subjectOf = async (x: CertificateSigningRequest) => (await parseCsr(Buffer.from(x.spec.request, 'base64').toString('utf8'))).subject.CN;
    const pending = async () => {
      const out = new Map<string, CertificateSigningRequest>();
      for (const x of await csrs()) {
        const cn = await subjectOf(x);
        if (cn?.startsWith('system:node:trio-') && !x.status?.certificate) out.set(cn.slice('system:node:'.length), x);
      }
      return out;
    };
    try {
      const three = await waitFor('three CSRs', async () => ((await pending()).size === 3 ? pending() : undefined), 30_000);
      for (const n of ['trio-0', 'trio-2']) await approveAndSign(c, three.get(n) as CertificateSigningRequest, 3600_000);
      for (const n of ['trio-0', 'trio-2']) await waitFor(`lease ${n}`, () => c.admin.get(R.leases, 'kube-node-lease', n).catch(() => undefined), 30_000);
      // trio-1 still waits for its certificate: no Node, no Lease.
      await expect(c.admin.get(R.nodes, undefined, 'trio-1')).rejects.toMatchObject({ code: 404 });
      await expect(c.admin.get(R.leases, 'kube-node-lease', 'trio-1')).rejects.toMatchObject({ code: 404 });
      await approveAndSign(c, three.get('trio-1') as CertificateSigningRequest, 3600_000);
      await waitFor('lease trio-1', () => c.admin.get(R.leases, 'kube-node-lease', 'trio-1').catch(() => undefined), 30_000);
    } finally {
      await p.kill('SIGTERM');
    }
  }, 60_000);
});
