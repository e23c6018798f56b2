// Test helper for the components' HTTPS health/metrics ports: a throw-away client CA with an admin
// (system:masters) and an ordinary user certificate, and a GET over TLS that skips verifying the server's
// self-signed certificate (as `curl -k` does) with an optional client certificate or bearer token.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { httpsGet } from '@kemu/client/testing/https-get';
import { CA_PROFILE, KUBERNETES_PROFILE, certificatePem, generatePrivateKey, issueCertificate, privateKeyPem, templateFromProfile } from '@kemu/pki';

export interface Credential {
  cert: string;
  key: string;
}

export interface TestClientCA {
  dir: string;
  caFile: string;
  admin: Credential;
  user: Credential;
  cleanup(): void;
}

export async function testClientCA(): Promise<TestClientCA> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-client-ca-'));
  const now = Date.now();
  const caKey = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const ca = { key: caKey, cert: await issueCertificate(templateFromProfile(CA_PROFILE, { subject: { CN: 'kubernetes' }, publicKey: caKey, isCA: true, nowMs: now }), { selfKey: caKey }) };
  const issue = async (cn: string, orgs: string[]): Promise<Credential> => {
    const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
    const cert = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: cn, O: orgs }, publicKey: key, nowMs: now }), ca);
    return { cert: certificatePem(cert), key: privateKeyPem(key) };
  };
  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, certificatePem(ca.cert));
  return {
    dir,
    caFile,
    admin: await issue('kubernetes-admin', ['system:masters']),
    user: await issue('jane', []),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** GET over HTTPS without verifying the server; the status and body text. */
export async function secureGet(url: string, o: { cred?: Credential; token?: string } = {}): Promise<{ status: number; body: string }> {
  const r = await httpsGet(url, o);
  return { status: r.status, body: r.body };
}
