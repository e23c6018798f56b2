// Client certificate rotation (--rotate-certificates) with short-lived certificates: a new csr-<random> for the
// node at 70–90 % of the certificate's life, the new pair stored and used; a certificate that expires before a
// new one is issued makes the node's heartbeats fail with 401 until the rotation's request is signed.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type CertificateSigningRequest, type Lease, type Node } from '@kemu/api';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { certificatePem, embeddedKubeconfigYaml, generatePrivateKey, issueCertificate, parseCertificates, parseCsr, privateKeyPem } from '@kemu/pki';
import { runSigner, startBootstrapCluster, type BootstrapCluster } from './testing.ts';

let c: BootstrapCluster;
const procs: Proc[] = [];
const CLIENT = 'kubernetes.io/kube-apiserver-client-kubelet';

beforeAll(async () => {
  c = await startBootstrapCluster('kemu-kubelet-rotate-');
}, 60_000);
afterAll(async () => {
  await Promise.all(procs.map((p) => p.kill('SIGKILL')));
  await c?.close();
});

function kubelet(name: string, args: string[]): Proc {
  const p = startProcess(name, BIN.kubelet, [
    `--hostname-override=${name}`,
    '--secure-port=0',
    '--rotate-certificates',
    '--node-lease-duration-seconds=4',
    `--bootstrap-kubeconfig=${c.bootstrapKubeconfig()}`,
    `--kubeconfig=${path.join(c.dir, `${name}.kubeconfig`)}`,
    `--cert-dir=${path.join(c.dir, `${name}-pki`)}`,
    ...args,
  ]);
  procs.push(p);
  return p;
}

const current = (name: string) => parseCertificates(fs.readFileSync(path.join(c.dir, `${name}-pki`, 'kubelet-client-current.pem'), 'utf8'))[0]!;
const renewTime = async (name: string) => (await c.admin.get<Lease>(R.leases, 'kube-node-lease', name)).spec?.renewTime;

describe('--rotate-certificates', () => {
  it('without bootstrapping: rotates the --kubeconfig certificate into --cert-dir', async () => {
    const signer = runSigner(c, { signers: [CLIENT], lifetimeMs: 3600_000 });
    const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
    const now = Date.now();
    // Valid 10 s more: time for a kubelet to start on a loaded machine. 100 s long, so that its rotation deadline
    // (70–90 % of its life) has passed and the kubelet rotates as soon as it runs.
    const cert = await issueCertificate(
      { subject: { CN: 'system:node:kc-0', O: ['system:nodes'] }, publicKey: key, keyUsages: ['digitalSignature'], extKeyUsages: ['clientAuth'], notBefore: new Date(now - 90_000), notAfter: new Date(now + 10_000) },
      c.ca,
    );
    const kubeconfig = path.join(c.dir, 'kc-0.kubeconfig');
    fs.writeFileSync(kubeconfig, embeddedKubeconfigYaml({ server: c.url, caPem: c.caPem, user: 'system:node:kc-0', clientCertPem: certificatePem(cert), clientKeyPem: privateKeyPem(key) }));
    // A 4 s node Lease is renewed every second, so the renewal after the first certificate's expiry comes at once.
    const p = startProcess('kc-0', BIN.kubelet, ['--hostname-override=kc-0', '--secure-port=0', '--rotate-certificates', '--node-lease-duration-seconds=4', `--kubeconfig=${kubeconfig}`, `--cert-dir=${path.join(c.dir, 'kc-0-pki')}`]);
    procs.push(p);
    try {
      await waitFor('rotated', () => fs.existsSync(path.join(c.dir, 'kc-0-pki', 'kubelet-client-current.pem')), 20_000);
      expect(current('kc-0').subject).toBe('O=system:nodes, CN=system:node:kc-0');
      await waitFor('renewed after the first expired', async () => Date.parse((await renewTime('kc-0')) ?? '') > now + 11_000, 20_000);
    } finally {
      signer.stop();
      await p.kill('SIGTERM');
    }
  }, 60_000);

  it('asks for a new certificate (csr-<random>) at 70–90 % of its life and uses it', async () => {
    const signer = runSigner(c, { signers: [CLIENT], lifetimeMs: 9000 });
    const p = kubelet('rot-0', []);
    try {
      await waitFor('first certificate', () => fs.existsSync(path.join(c.dir, 'rot-0-pki', 'kubelet-client-current.pem')), 20_000);
      const first = current('rot-0');
      const life = first.notAfter.getTime() - first.notBefore.getTime();
      const line = await waitFor('deadline', () => /Certificate expiration is (.+?), rotation deadline is (.+? UTC)/.exec(p.output()), 20_000);
      const deadline = Date.parse((line[2] ?? '').replace(' +0000 UTC', 'Z').replace(' ', 'T'));
      const at = (deadline - first.notBefore.getTime()) / life;
      // Logged to the second (Go's time String() here keeps no fraction).
      expect(at).toBeGreaterThanOrEqual(0.7 - 1000 / life);
      expect(at).toBeLessThanOrEqual(0.9 + 1000 / life);

      const rotated = await waitFor('a csr-<random> of rot-0', async () => {
        for (const x of (await c.admin.list<CertificateSigningRequest>(R.certificatesigningrequests)).items) {
          if (!x.metadata.name?.startsWith('csr-')) continue;
          if ((await parseCsr(Buffer.from(x.spec.request, 'base64').toString('utf8'))).subject.CN === 'system:node:rot-0') return x;
        }
        return undefined;
      }, 20_000);
      expect(rotated.metadata.name).toMatch(/^csr-[a-z0-9]{5}$/);
      expect(rotated.spec.signerName).toBe(CLIENT);
      expect(rotated.spec.usages).toEqual(['digital signature', 'client auth']);
      const req = await parseCsr(Buffer.from(rotated.spec.request, 'base64').toString('utf8'));
      expect(req.subject).toMatchObject({ CN: 'system:node:rot-0', O: ['system:nodes'] });
      expect(p.output()).toContain(`${CLIENT}: Rotating certificates`);

      await waitFor('new certificate in use', () => current('rot-0').serialNumber !== first.serialNumber, 20_000);
      // The heartbeats go on past the first certificate's expiry, with the new one.
      const expiry = first.notAfter.getTime();
      await waitFor('renewed after expiry', async () => Date.parse((await renewTime('rot-0')) ?? '') > expiry + 1000, 20_000);
    } finally {
      signer.stop();
      await p.kill('SIGTERM');
    }
  }, 60_000);

  it('an expired certificate: heartbeats fail with 401, the node lifecycle controller marks it NotReady; signed, it recovers', async () => {
    let signer = runSigner(c, { signers: [CLIENT], lifetimeMs: 5000 });
    const kcm = startProcess('kcm', BIN.controllerManager, [
      `--kubeconfig=${path.join(c.dir, 'admin.kubeconfig')}`,
      '--secure-port=0',
      '--leader-elect=false',
      '--controllers=node-lifecycle-controller',
      '--node-monitor-period=500ms',
      '--node-monitor-grace-period=4s',
    ]);
    procs.push(kcm);
    // Status posted every second: Ready comes back within a second of the new certificate, not up to 10 s later.
    const p = kubelet('exp-0', ['--node-status-update-frequency=1s']);
    const ready = async () => (await c.admin.get<Node>(R.nodes, undefined, 'exp-0').catch(() => undefined))?.status?.conditions?.find((x) => x.type === 'Ready');
    try {
      await waitFor('first certificate', () => fs.existsSync(path.join(c.dir, 'exp-0-pki', 'kubelet-client-current.pem')), 20_000);
      signer.stop();
      const first = current('exp-0');
      await waitFor('401 after expiry', () => /failed to update lease.*Unauthorized/.test(p.output()), 20_000);
      const stale = Date.parse((await renewTime('exp-0')) ?? '');
      expect(stale).toBeLessThanOrEqual(first.notAfter.getTime() + 1000);
      const notReady = await waitFor('NotReady', async () => ((await ready())?.status === 'Unknown' ? ready() : undefined), 30_000);
      expect(notReady).toMatchObject({ reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });

      signer = runSigner(c, { signers: [CLIENT], lifetimeMs: 3600_000 });
      await waitFor('renewed again', async () => Date.parse((await renewTime('exp-0')) ?? '') > first.notAfter.getTime() + 1000, 30_000);
      expect(current('exp-0').serialNumber).not.toBe(first.serialNumber);
      await waitFor('Ready again', async () => (await ready())?.status === 'True', 30_000);
    } finally {
      signer.stop();
      await p.kill('SIGTERM');
      await kcm.kill('SIGTERM');
    }
  }, 60_000);
});
