// Test fixture for TLS bootstrapping: a kube-apiserver process with the cluster PKI (@kemu/pki), client
// certificates, bootstrap-token authentication, Node,RBAC authorization and NodeRestriction; a bootstrap token
// Secret with the kubelet-bootstrap binding; and, standing in for the controller-manager's CSR controllers
// (built elsewhere), a `signer` that approves and signs node CSRs with the cluster CA.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { R, type CertificateSigningRequest, type KubeObject } from '@kemu/api';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { RestClient, loadClientConfig } from '@kemu/client';
import { ensureClusterPki, issueCertificate, parseCsr, readSigner, certificatePem, type Signer } from '@kemu/pki';

export const TOKEN_ID = 'abcdef';
export const TOKEN_SECRET = '0123456789abcdef';

export interface BootstrapCluster {
  dir: string;
  url: string;
  apiserver: Proc;
  admin: RestClient;
  ca: Signer;
  caPem: string;
  /** A bootstrap kubeconfig with this token (default: the valid one). */
  bootstrapKubeconfig(token?: string): string;
  close(): Promise<void>;
}

export async function startBootstrapCluster(prefix: string): Promise<BootstrapCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const port = await freePort();
  const url = `https://127.0.0.1:${port}`;
  await ensureClusterPki({ dataDir: dir, server: url });
  const pki = path.join(dir, 'pki');
  const apiserver = startProcess('apiserver', BIN.apiserver, [
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--datastore-endpoint=sqlite://${path.join(dir, 'state.db')}`,
    `--tls-cert-file=${pki}/apiserver.pem`,
    `--tls-private-key-file=${pki}/apiserver-key.pem`,
    `--client-ca-file=${pki}/ca.pem`,
    `--service-account-key-file=${pki}/sa.pub`,
    `--service-account-signing-key-file=${pki}/sa.key`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    '--enable-admission-plugins=NodeRestriction',
    '--authorization-mode=Node,RBAC',
    '--enable-bootstrap-token-auth=true',
  ]);
  const admin = new RestClient(loadClientConfig({ kubeconfig: path.join(dir, 'admin.kubeconfig') }), { maxRetries: 0 });
  const close = async () => {
    await admin.close();
    await apiserver.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor('apiserver ready', async () => {
      if (apiserver.child.exitCode !== null) throw new Error(`apiserver exited: ${apiserver.output()}`);
      return (await admin.raw('GET', '/readyz')).status === 200;
    }, 30_000);
    const expiration = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await admin.create(R.secrets, 'kube-system', {
      metadata: { name: `bootstrap-token-${TOKEN_ID}`, namespace: 'kube-system' },
      type: 'bootstrap.kubernetes.io/token',
      stringData: { 'token-id': TOKEN_ID, 'token-secret': TOKEN_SECRET, expiration, 'usage-bootstrap-authentication': 'true', 'auth-extra-groups': 'system:bootstrappers:default-node-token' },
    } as KubeObject);
    await admin.create(R.clusterrolebindings, undefined, {
      metadata: { name: 'kubelet-bootstrap' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node-bootstrapper' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:bootstrappers:default-node-token' }],
    } as KubeObject);
  } catch (e) {
    await close();
    throw e;
  }
  const caPem = fs.readFileSync(path.join(pki, 'ca.pem'), 'utf8');
  let n = 0;
  return {
    dir,
    url,
    apiserver,
    admin,
    ca: readSigner(path.join(pki, 'ca.pem'), path.join(pki, 'ca-key.pem')),
    caPem,
    bootstrapKubeconfig(token = `${TOKEN_ID}.${TOKEN_SECRET}`) {
      const file = path.join(dir, `bootstrap-${n++}.kubeconfig`);
      fs.writeFileSync(
        file,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          `- name: kubernetes`,
          `  cluster: {server: "${url}", certificate-authority-data: ${Buffer.from(caPem).toString('base64')}}`,
          'users:',
          `- name: tls-bootstrap-token-user`,
          `  user: {token: "${token}"}`,
          'contexts:',
          '- name: tls-bootstrap-token-user@kubernetes',
          '  context: {cluster: kubernetes, user: tls-bootstrap-token-user}',
          'current-context: tls-bootstrap-token-user@kubernetes',
          '',
        ].join('\n'),
      );
      return file;
    },
    close,
  };
}

/** The test's CSR "controller": approves and signs every pending CSR of `signerName` with a certificate living `lifetimeMs`. */
export async function approveAndSign(c: BootstrapCluster, csr: CertificateSigningRequest, lifetimeMs: number): Promise<void> {
  const parsed = await parseCsr(Buffer.from(csr.spec.request, 'base64').toString('utf8'));
  const now = Date.now();
  const server = csr.spec.usages?.includes('server auth');
  const cert = await issueCertificate(
    {
      subject: parsed.subject,
      publicKey: parsed.publicKey,
      keyUsages: ['digitalSignature'],
      extKeyUsages: [server ? 'serverAuth' : 'clientAuth'],
      dnsNames: parsed.dnsNames,
      ipAddresses: parsed.ipAddresses,
      notBefore: new Date(now - 1000),
      notAfter: new Date(now + lifetimeMs),
    },
    c.ca,
  );
  const approved = { ...csr, status: { conditions: [{ type: 'Approved', status: 'True' as const, reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' }] } };
  const after = await c.admin.update<CertificateSigningRequest>(R.certificatesigningrequests, undefined, approved, { subresource: 'approval' });
  await c.admin.update<CertificateSigningRequest>(R.certificatesigningrequests, undefined, { ...after, status: { ...after.status, certificate: Buffer.from(certificatePem(cert)).toString('base64') } }, { subresource: 'status' });
}

/** Signs every pending CSR whose signer is in `signers` until stopped. */
export function runSigner(c: BootstrapCluster, o: { signers: string[]; lifetimeMs: number }): { stop(): void; signed: string[] } {
  const signed: string[] = [];
  let stopped = false;
  void (async () => {
    while (!stopped) {
      try {
        const list = await c.admin.list<CertificateSigningRequest>(R.certificatesigningrequests);
        for (const csr of list.items) {
          if (csr.status?.certificate || !o.signers.includes(csr.spec.signerName)) continue;
          if (csr.status?.conditions?.length) continue;
          await approveAndSign(c, csr, o.lifetimeMs);
          signed.push(csr.metadata.name ?? '');
        }
      } catch (e) {
        // The apiserver going away at the end of a test.
        if (process.env.KEMU_TEST_DEBUG) console.log('signer', e);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return { stop: () => void (stopped = true), signed };
}
