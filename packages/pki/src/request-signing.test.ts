// Kubernetes' local signer: usages, validity and the CA's own expiry; openssl makes a request with every kind of
// SAN and judges the certificate issued for it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificatePem, issueCertificate, templateFromProfile, type Signer } from './cert.ts';
import { createCsr, parseCsr } from './csr.ts';
import { generatePrivateKey, privateKeyPem } from './keys.ts';
import { CA_PROFILE } from './profile.ts';
import { signRequest, usagesFromKubernetes, type RequestSigningPolicy } from './request-signing.ts';
import { verifyCertificate } from './verify.ts';
import { noOpenssl, openssl, opensslVerify, x509Text } from './testing/openssl.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
let dir: string;
let ca: Signer;

const policy = (o: Partial<RequestSigningPolicy> = {}): RequestSigningPolicy => ({
  ttlMs: 8760 * HOUR,
  usages: ['digital signature', 'client auth'],
  backdateMs: 5 * MIN,
  shortMs: 8 * HOUR,
  nowMs: NOW,
  ...o,
});

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-reqsign-'));
  const key = await generatePrivateKey();
  // A CA that expires two years after NOW.
  ca = { key, cert: await issueCertificate({ ...templateFromProfile(CA_PROFILE, { subject: { CN: 'kubernetes' }, publicKey: key, isCA: true, nowMs: NOW }), notAfter: new Date(NOW + 2 * 8760 * HOUR) }, { selfKey: key }) };
}, 30_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('usagesFromKubernetes', () => {
  it('maps certificates.k8s.io usage names; extended usages deduplicated and in Go order', () => {
    expect(usagesFromKubernetes(['client auth', 'signing', 'key encipherment', 'server auth', 's/mime', 'email protection', 'any'])).toEqual({
      keyUsages: ['digitalSignature', 'keyEncipherment'],
      extKeyUsages: ['any', 'serverAuth', 'clientAuth', 'emailProtection'],
    });
  });
  it("refuses unknown names with the signer's message", () => {
    expect(() => usagesFromKubernetes(['client auth', 'bogus', 'nope'])).toThrow('unrecognized usage values: ["bogus" "nope"]');
  });
});

describe('signRequest', () => {
  it('back-dates NotBefore 5 minutes; a long-lived NotAfter loses the back-date, a short-lived one keeps its full TTL', async () => {
    const req = await parseCsr((await createCsr({ CN: 'jane', O: ['dev'] }, await generatePrivateKey({ algo: 'ecdsa', size: 256 }))).toString('pem'));
    const long = await signRequest(ca, req, policy({ ttlMs: 24 * HOUR }));
    expect([long.notBefore.getTime(), long.notAfter.getTime()]).toEqual([NOW - 5 * MIN, NOW + 24 * HOUR - 5 * MIN]);
    const short = await signRequest(ca, req, policy({ ttlMs: 10 * MIN }));
    expect([short.notBefore.getTime(), short.notAfter.getTime()]).toEqual([NOW - 5 * MIN, NOW + 10 * MIN]);
    expect(verifyCertificate(short, { roots: [ca.cert], nowMs: NOW, usage: 'clientAuth' }).ok).toBe(true);
  });

  it("never outlives the CA, and refuses once the CA has expired, with Kubernetes' messages", async () => {
    const req = await parseCsr((await createCsr({ CN: 'jane' }, await generatePrivateKey({ algo: 'ecdsa', size: 256 }))).toString('pem'));
    const capped = await signRequest(ca, req, policy({ ttlMs: 3 * 8760 * HOUR }));
    expect(capped.notAfter.getTime()).toBe(ca.cert.notAfter.getTime());
    const end = ca.cert.notAfter.getTime();
    await expect(signRequest(ca, req, policy({ nowMs: end + 10 * MIN }))).rejects.toThrow('the signer has expired: NotAfter=2028-05-31 12:00:00 +0000 UTC');
    // Expired, but less than the back-date ago.
    await expect(signRequest(ca, req, policy({ nowMs: end + MIN }))).rejects.toThrow(
      'refusing to sign a certificate that expired in the past: NotAfter=2028-05-31 12:00:00 +0000 UTC',
    );
  });

  it.skipIf(noOpenssl)("carries the request's subject and every SAN, the CSR's usages, CA:FALSE; openssl verifies it", async () => {
    const keyFile = path.join(dir, 'user.key');
    fs.writeFileSync(keyFile, privateKeyPem(await generatePrivateKey()));
    const csrPem = openssl([
      'req', '-new', '-key', keyFile, '-subj', '/O=dev/O=ops/CN=jane',
      '-addext', 'subjectAltName=DNS:jane.example.com,IP:10.0.0.7,email:jane@example.com,URI:spiffe://cluster.local/jane',
    ]);
    const cert = await signRequest(ca, await parseCsr(csrPem), policy({ nowMs: Date.now(), usages: ['digital signature', 'key encipherment', 'client auth'] }));
    const caFile = path.join(dir, 'ca.pem');
    const leafFile = path.join(dir, 'jane.pem');
    fs.writeFileSync(caFile, certificatePem(ca.cert));
    fs.writeFileSync(leafFile, certificatePem(cert));
    expect(opensslVerify(caFile, leafFile)).toBe(`${leafFile}: OK`);
    const text = x509Text(leafFile);
    expect(text).toContain('Subject: O = dev + O = ops, CN = jane');
    expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment/);
    expect(text).toMatch(/X509v3 Extended Key Usage:\s+TLS Web Client Authentication/);
    expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
    expect(text).not.toContain('Subject Key Identifier');
    expect(text).toContain('X509v3 Authority Key Identifier');
    expect(text).toContain('DNS:jane.example.com, IP Address:10.0.0.7, email:jane@example.com, URI:spiffe://cluster.local/jane');
  });
});
