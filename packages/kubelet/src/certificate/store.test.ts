// The certificate store's files (kubelet-client-<time>.pem holding certificate and key, and the -current.pem
// symlink moved to each new one), the bootstrap CSR's name, and the rotation deadline's range.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { certificatePem, generatePrivateKey, issueCertificate, privateKeyPem } from '@kemu/pki';
import { bootstrapCsrName, nodeSubject } from './identity.ts';
import { rotationDeadline } from './manager.ts';
import { CertificateFileStore } from './store.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-cert-store-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function selfSigned(cn: string): Promise<{ cert: string; key: string }> {
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const cert = await issueCertificate({ subject: { CN: cn }, publicKey: key, keyUsages: ['digitalSignature'], notBefore: new Date(0), notAfter: new Date(Date.now() + 60_000) }, { selfKey: key });
  return { cert: certificatePem(cert), key: privateKeyPem(key) };
}

describe('CertificateFileStore', () => {
  it('writes <pair>-<time>.pem (0600) and points <pair>-current.pem at the newest', async () => {
    const store = new CertificateFileStore(path.join(dir, 'pki'), 'kubelet-client');
    expect(store.current()).toBeUndefined();
    const a = await selfSigned('a');
    const first = store.update(a.cert, a.key, Date.UTC(2026, 11, 3, 13, 21, 10));
    expect(path.basename(first)).toBe('kubelet-client-2026-12-03-13-21-10.pem');
    expect((fs.statSync(first).mode & 0o777).toString(8)).toBe('600');
    expect(fs.readlinkSync(store.currentPath())).toBe(first);
    expect(store.current()?.cert.subject).toBe('CN=a');
    const b = await selfSigned('b');
    const second = store.update(b.cert, b.key, Date.UTC(2026, 11, 3, 14, 0, 0));
    expect(fs.readlinkSync(store.currentPath())).toBe(second);
    expect(store.current()?.cert.subject).toBe('CN=b');
    expect(store.current()?.keyPem).toBe(b.key);
    expect(fs.existsSync(first)).toBe(true);
  });
});

describe('the bootstrap CSR name', () => {
  it('is node-csr-<digest>: the same for the same key, subject and usages, different otherwise', async () => {
    const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
    const other = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
    const name = bootstrapCsrName(key, nodeSubject('w-0'), ['digital signature', 'key encipherment', 'client auth']);
    expect(name).toMatch(/^node-csr-[A-Za-z0-9_-]{43}$/);
    expect(bootstrapCsrName(key, nodeSubject('w-0'), ['digital signature', 'key encipherment', 'client auth'])).toBe(name);
    expect(bootstrapCsrName(other, nodeSubject('w-0'), ['digital signature', 'key encipherment', 'client auth'])).not.toBe(name);
    expect(bootstrapCsrName(key, nodeSubject('w-1'), ['digital signature', 'key encipherment', 'client auth'])).not.toBe(name);
    expect(bootstrapCsrName(key, nodeSubject('w-0'), ['digital signature', 'client auth'])).not.toBe(name);
  });
});

describe('the rotation deadline', () => {
  it('falls between 70 % and 90 % of the certificate life', () => {
    expect(rotationDeadline(1000, 11_000, () => 0)).toBe(8000);
    expect(rotationDeadline(1000, 11_000, () => 1)).toBe(10_000);
    expect(rotationDeadline(1000, 11_000, () => 0.5)).toBe(9000);
  });
});
