// --rotate-server-certificates: the kubelet asks kubernetes.io/kubelet-serving for its serving certificate; the
// request stays Pending until an admin approves it (no controller does), then the kubelet serves the issued one.
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type CertificateSigningRequest } from '@kemu/api';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { parseCsr } from '@kemu/pki';
import { approveAndSign, runSigner, startBootstrapCluster, type BootstrapCluster } from './testing.ts';

let c: BootstrapCluster;
let p: Proc | undefined;

beforeAll(async () => {
  c = await startBootstrapCluster('kemu-kubelet-serving-');
}, 60_000);
afterAll(async () => {
  await p?.kill('SIGKILL');
  await c?.close();
});

function servedSubject(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const cn = s.getPeerCertificate().subject?.CN ?? '';
      s.destroy();
      resolve(String(cn));
    });
    s.on('error', reject);
  });
}

describe('--rotate-server-certificates', () => {
  it('a kubelet-serving CSR stays Pending until approved; then the issued certificate is served', async () => {
    const signer = runSigner(c, { signers: ['kubernetes.io/kube-apiserver-client-kubelet'], lifetimeMs: 3600_000 });
    const port = await freePort();
    const certDir = path.join(c.dir, 'srv-pki');
    p = startProcess('srv-0', BIN.kubelet, [
      '--hostname-override=srv-0',
      '--node-ip=10.240.0.9',
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      '--rotate-server-certificates',
      `--bootstrap-kubeconfig=${c.bootstrapKubeconfig()}`,
      `--kubeconfig=${path.join(c.dir, 'srv.kubeconfig')}`,
      `--cert-dir=${certDir}`,
    ]);
    try {
      const csr = await waitFor('serving csr', async () => (await c.admin.list<CertificateSigningRequest>(R.certificatesigningrequests)).items.find((x) => x.spec.signerName === 'kubernetes.io/kubelet-serving'), 30_000);
      expect(csr.metadata.name).toMatch(/^csr-[a-z0-9]{5}$/);
      expect(csr.spec.usages).toEqual(['digital signature', 'server auth']);
      const req = await parseCsr(Buffer.from(csr.spec.request, 'base64').toString('utf8'));
      expect(req.subject).toMatchObject({ CN: 'system:node:srv-0', O: ['system:nodes'] });
      expect(req.dnsNames).toEqual(['srv-0']);
      expect(req.ipAddresses).toEqual(['10.240.0.9']);
      // Pending: nothing approves it, and the kubelet serves its self-signed certificate meanwhile.
      const now = await c.admin.get<CertificateSigningRequest>(R.certificatesigningrequests, undefined, csr.metadata.name ?? '');
      expect(now.status?.conditions ?? []).toEqual([]);
      expect(await servedSubject(port)).toMatch(/^srv-0@\d+$/);

      await approveAndSign(c, now, 3600_000);
      await waitFor('issued certificate served', async () => (await servedSubject(port)) === 'system:node:srv-0', 20_000);
      expect(fs.lstatSync(path.join(certDir, 'kubelet-server-current.pem')).isSymbolicLink()).toBe(true);
    } finally {
      signer.stop();
    }
  }, 60_000);
});
