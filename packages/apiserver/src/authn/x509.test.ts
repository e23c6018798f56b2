import { describe, expect, it } from 'vitest';
import { generatePrivateKey, issueCertificate, type Signer } from '@kemu/pki';
import { makeCa, makeClient, presenting } from './testing/certs.ts';
import { AuthenticationError } from './types.ts';
import { CREDENTIAL_ID_KEY, x509Authenticator } from './x509.ts';

describe('x509 authenticator', () => {
  let ca: Signer;
  let other: Signer;

  it('maps CN to the user and each O to a group, in order, with the certificate fingerprint as credential id', async () => {
    ca = await makeCa('kubernetes');
    other = await makeCa('someone-else');
    const cert = await makeClient(ca, 'jane', ['team-b', 'team-a']);
    const res = await x509Authenticator([ca.cert]).authenticate(presenting([cert]));
    expect(res?.user.username).toBe('jane');
    expect(res?.user.groups).toEqual(['team-b', 'team-a']);
    expect(res?.user.extra?.[CREDENTIAL_ID_KEY]?.[0]).toMatch(/^X509SHA256=[0-9a-f]{64}$/);
  });

  it('answers nothing without a certificate or with an empty bundle', async () => {
    expect(await x509Authenticator([ca.cert]).authenticate({ headers: {}, peerCertificates: [] })).toBeUndefined();
    expect(await x509Authenticator([]).authenticate(presenting([await makeClient(ca, 'x')]))).toBeUndefined();
  });

  it('refuses a certificate from another CA with Kubernetes\' words', async () => {
    const cert = await makeClient(other, 'mallory', ['system:masters']);
    const run = async () => x509Authenticator([ca.cert]).authenticate(presenting([cert]));
    await expect(run()).rejects.toThrow(AuthenticationError);
    await expect(run()).rejects.toThrow(/^verifying certificate SN=\d+, SKID=([0-9A-F]{2}:)+[0-9A-F]{2}, AKID=([0-9A-F]{2}:)+[0-9A-F]{2} failed: x509: certificate signed by unknown authority$/);
  });

  it('refuses an expired certificate', async () => {
    const past = Date.now() - 10 * 86_400_000;
    const cert = await makeClient(ca, 'old', [], { notBefore: new Date(past - 86_400_000), notAfter: new Date(past) });
    await expect(async () => x509Authenticator([ca.cert]).authenticate(presenting([cert]))).rejects.toThrow(/x509: certificate has expired or is not yet valid: current time .* is after /);
  });

  it('follows an intermediate the client sends', async () => {
    const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
    const now = Date.now();
    const mid = await issueCertificate({ subject: { CN: 'intermediate' }, publicKey: key, isCA: true, keyUsages: ['keyCertSign'], notBefore: new Date(now - 86_400_000), notAfter: new Date(now + 86_400_000) }, ca);
    const leaf = await makeClient({ cert: mid, key }, 'bob', ['ops']);
    expect((await x509Authenticator([ca.cert]).authenticate(presenting([leaf, mid])))?.user.username).toBe('bob');
    await expect(async () => x509Authenticator([ca.cert]).authenticate(presenting([leaf]))).rejects.toThrow('x509: certificate signed by unknown authority');
  });

  it('remembers a verdict only while the chain is valid', async () => {
    const cert = await makeClient(ca, 'carol');
    let now = Date.now();
    const a = x509Authenticator([ca.cert], () => now);
    expect((await a.authenticate(presenting([cert])))?.user.username).toBe('carol');
    now += 2 * 86_400_000;
    await expect(async () => a.authenticate(presenting([cert]))).rejects.toThrow('x509: certificate has expired or is not yet valid');
  });

  it('ignores a certificate without a CN', async () => {
    const cert = await makeClient(ca, '', ['g']);
    expect(await x509Authenticator([ca.cert]).authenticate(presenting([cert]))).toBeUndefined();
  });
});
