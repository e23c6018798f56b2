// Issuing, parsing and verifying certificates and CSRs; openssl judges what is issued, and verification answers
// with Go's crypto/x509 messages.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificatePem, issueCertificate, parseCertificates, splitHosts, templateFromProfile, type Signer } from './cert.ts';
import { generatePrivateKey } from './keys.ts';
import { CA_PROFILE, KUBERNETES_PROFILE, profileValidity, profileUsages, type Profile } from './profile.ts';
import { verifyCertificate } from './verify.ts';
import { createCsr, parseCsr } from './csr.ts';
import { fromName } from './name.ts';
import { selfSignedServingCert } from './self-signed.ts';
import { PkiError } from './errors.ts';
import { apiserverHosts } from './cluster-pki.ts';
import { noOpenssl, openssl, opensslVerify, x509Text } from './testing/openssl.ts';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 31);
const HOUR = 3_600_000;
let dir: string;
let root: Signer;
let rsaKey: KeyObject;

async function makeCA(cn: string, key?: KeyObject, profile: Profile = CA_PROFILE, nowMs = NOW): Promise<Signer> {
  const k = key ?? (await generatePrivateKey());
  return { key: k, cert: await issueCertificate(templateFromProfile(profile, { subject: { CN: cn }, publicKey: k, isCA: true, nowMs }), { selfKey: k }) };
}
function save(name: string, pem: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, pem);
  return f;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-cert-'));
  rsaKey = await generatePrivateKey();
  root = await makeCA('root');
}, 30_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('profiles', () => {
  it("maps cfssl usage names and back-dates like cfssl: rounded to the minute, minus 5 minutes", () => {
    expect(profileUsages(KUBERNETES_PROFILE)).toEqual({ keyUsages: ['digitalSignature', 'keyEncipherment'], extKeyUsages: ['serverAuth', 'clientAuth'] });
    expect(profileValidity(KUBERNETES_PROFILE, NOW)).toEqual({ notBefore: new Date(Date.UTC(2026, 0, 1, 11, 56)), notAfter: new Date(Date.UTC(2026, 0, 1, 11, 56) + 876_000 * HOUR) });
    expect(() => profileUsages({ usages: ['bogus'], expiry: '1h' })).toThrow(/unknown usage "bogus"/);
    expect(() => profileValidity({ usages: [], expiry: '100y' }, NOW)).toThrow(/invalid expiry "100y"/);
  });

  it('splits hosts into DNS names and IPs; the kubernetes Service IP is a SAN, a bad range refused', () => {
    expect(splitHosts(['10.96.0.1', 'kubernetes', ' ::1 ', 'kubernetes', ''])).toEqual({ dnsNames: ['kubernetes'], ipAddresses: ['10.96.0.1', '::1'] });
    expect(apiserverHosts({ serviceClusterIpRange: '10.100.0.0/16,fd00:1111::/112' })[0]).toBe('10.100.0.1');
    expect(() => apiserverHosts({ serviceClusterIpRange: '10.96.0.0' })).toThrow(
      new PkiError('invalid service cluster IP range "10.96.0.0": service-cluster-ip-range[0] is not a valid cidr'),
    );
  });
});

describe.skipIf(noOpenssl)('issued certificates, judged by openssl', () => {
  it('an ECDSA P-256 CA signs an RSA leaf with ecdsa-with-SHA256; several O values share one RDN, as Go writes them', async () => {
    const ec = await makeCA('ec-root', await generatePrivateKey({ algo: 'ecdsa', size: 256 }));
    const leaf = await issueCertificate(
      templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: 'system:node:worker-0', O: ['system:nodes', 'extra'] }, publicKey: rsaKey, hosts: ['worker-0', '127.0.0.5'], nowMs: Date.now() }),
      ec,
    );
    const caFile = save('ec-ca.pem', certificatePem(ec.cert));
    const leafFile = save('ec-leaf.pem', certificatePem(leaf));
    expect(opensslVerify(caFile, leafFile)).toBe(`${leafFile}: OK`);
    const text = x509Text(leafFile);
    expect(text).toContain('Signature Algorithm: ecdsa-with-SHA256');
    expect(text).toContain('Subject: O = system:nodes + O = extra, CN = system:node:worker-0');
    expect(text).toContain('DNS:worker-0, IP Address:127.0.0.5');
    expect(fromName(leaf.subjectName)).toEqual({ CN: 'system:node:worker-0', O: ['system:nodes', 'extra'] });
  });

  it('a CSR made here passes openssl req -verify and reads back', async () => {
    const csr = await createCsr({ CN: 'system:node:worker-1', O: ['system:nodes'] }, rsaKey, ['worker-1', '127.0.0.6']);
    const f = save('node.csr', csr.toString('pem'));
    expect(() => openssl(['req', '-in', f, '-noout', '-verify'])).not.toThrow();
    const parsed = await parseCsr(csr.toString('pem'));
    expect(parsed.subject).toEqual({ CN: 'system:node:worker-1', O: ['system:nodes'] });
    expect([parsed.dnsNames, parsed.ipAddresses]).toEqual([['worker-1'], ['127.0.0.6']]);
    // DER, as a CertificateSigningRequest's spec.request carries it once base64-decoded
    expect((await parseCsr(new Uint8Array(csr.rawData))).subject.CN).toBe('system:node:worker-1');
    await expect(parseCsr('nothing')).rejects.toThrow(/no CERTIFICATE REQUEST block found/);
  });
});

describe("verification, with Go's messages", () => {
  let leaf: Signer['cert'];
  beforeAll(async () => {
    leaf = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: 'kube-apiserver' }, publicKey: rsaKey, hosts: ['kubernetes', '10.96.0.1'], nowMs: NOW }), root);
  });

  it('accepts the chain, for its usages and names', () => {
    expect(verifyCertificate(leaf, { roots: [root.cert], nowMs: NOW, usage: 'serverAuth', host: 'kubernetes' })).toEqual({ ok: true, chain: [leaf, root.cert] });
    expect(verifyCertificate(leaf, { roots: [root.cert], nowMs: NOW, usage: 'clientAuth', host: '10.96.0.1' }).ok).toBe(true);
    expect(verifyCertificate(root.cert, { roots: [root.cert], nowMs: NOW }).ok).toBe(true);
  });

  it('names what is wrong', async () => {
    const other = await makeCA('root', undefined); // same name, another key
    const r = (o: Partial<Parameters<typeof verifyCertificate>[1]>) => verifyCertificate(leaf, { roots: [root.cert], nowMs: NOW, ...o });
    expect(r({ roots: [other.cert] })).toEqual({ ok: false, reason: 'x509: certificate signed by unknown authority' });
    expect(r({ nowMs: NOW - 10 * 60_000 })).toEqual({
      ok: false,
      reason: 'x509: certificate has expired or is not yet valid: current time 2026-01-01T11:50:31Z is before 2026-01-01T11:56:00Z',
    });
    expect(r({ nowMs: Date.UTC(2127, 0, 1) }).ok ? '' : (r({ nowMs: Date.UTC(2127, 0, 1) }) as { reason: string }).reason).toMatch(
      /^x509: certificate has expired or is not yet valid: current time 2127-01-01T00:00:00Z is after 2125-12-08T11:56:00Z$/,
    );
    expect(r({ host: 'example.com' })).toEqual({ ok: false, reason: 'x509: certificate is valid for kubernetes, not example.com' });
    expect(r({ host: '10.0.0.1' })).toEqual({ ok: false, reason: 'x509: certificate is valid for 10.96.0.1, not 10.0.0.1' });
    const serverOnly = await issueCertificate(
      { ...templateFromProfile({ usages: ['signing', 'server auth'], expiry: '1h' }, { subject: { CN: 'srv' }, publicKey: rsaKey, nowMs: NOW }) },
      root,
    );
    expect(verifyCertificate(serverOnly, { roots: [root.cert], nowMs: NOW, usage: 'clientAuth' })).toEqual({ ok: false, reason: 'x509: certificate specifies an incompatible key usage' });
  });

  it('follows intermediates, and refuses a leaf as an issuer', async () => {
    const midKey = await generatePrivateKey();
    const mid: Signer = { key: midKey, cert: await issueCertificate(templateFromProfile(CA_PROFILE, { subject: { CN: 'intermediate' }, publicKey: midKey, isCA: true, nowMs: NOW }), root) };
    const end = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: 'end' }, publicKey: rsaKey, nowMs: NOW }), mid);
    expect(verifyCertificate(end, { roots: [root.cert], intermediates: [mid.cert], nowMs: NOW })).toEqual({ ok: true, chain: [end, mid.cert, root.cert] });
    expect(verifyCertificate(end, { roots: [root.cert], nowMs: NOW }).ok).toBe(false);
    const fake = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: 'end' }, publicKey: rsaKey, nowMs: NOW }), { cert: leaf, key: rsaKey });
    expect(verifyCertificate(fake, { roots: [leaf], nowMs: NOW })).toEqual({
      ok: false,
      reason:
        'x509: certificate signed by unknown authority (possibly because of "x509: invalid signature: parent certificate cannot sign this kind of certificate" while trying to verify candidate authority certificate "kube-apiserver")',
    });
  });

  it('refuses to sign with a key that is not the CA certificate key, or to self-sign with another key', async () => {
    const k = await generatePrivateKey();
    const tpl = templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: 'x' }, publicKey: rsaKey, nowMs: NOW });
    await expect(issueCertificate(tpl, { cert: root.cert, key: k })).rejects.toThrow(new PkiError('the signing key does not belong to the CA certificate "CN=root"'));
    await expect(issueCertificate(tpl, { selfKey: k })).rejects.toThrow('a self-signed certificate must be signed by its own key');
  });

  it('parses every certificate of a PEM bundle, in order', () => {
    const bundle = certificatePem(leaf) + certificatePem(root.cert);
    expect(parseCertificates(bundle).map((c) => c.subject)).toEqual(['CN=kube-apiserver', 'CN=root']);
    expect(() => parseCertificates('junk', 'ca.pem')).toThrow('ca.pem: no CERTIFICATE block found');
  });
});

describe('selfSignedServingCert (client-go GenerateSelfSignedCertKey)', () => {
  it('a serving certificate and its CA in one file, for the host and the alternate names, a year from an hour ago', async () => {
    const { certPem, keyPem } = await selfSignedServingCert({ host: 'localhost', alternateIPs: ['127.0.0.1'], alternateDNS: ['kubernetes.default.svc'], nowMs: NOW });
    const [cert, ca] = parseCertificates(certPem);
    expect(cert!.subject).toBe(`CN=localhost@${Math.floor(NOW / 1000)}`);
    expect(ca!.subject).toBe(`CN=localhost-ca@${Math.floor(NOW / 1000)}`);
    expect(cert!.notBefore.getTime()).toBe(Math.floor(NOW / 1000) * 1000 - HOUR);
    expect(cert!.notAfter.getTime() - cert!.notBefore.getTime()).toBe(365 * 24 * HOUR);
    expect(verifyCertificate(cert!, { roots: [ca!], nowMs: NOW, usage: 'serverAuth', host: 'kubernetes.default.svc' }).ok).toBe(true);
    expect(verifyCertificate(cert!, { roots: [ca!], nowMs: NOW, host: '127.0.0.1' }).ok).toBe(true);
    expect(verifyCertificate(cert!, { roots: [ca!], nowMs: NOW, usage: 'clientAuth' })).toEqual({ ok: false, reason: 'x509: certificate specifies an incompatible key usage' });
    expect(keyPem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
  });
});
