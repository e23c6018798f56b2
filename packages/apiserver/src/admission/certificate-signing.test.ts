import { R, type KubeObject } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import { certificateSigningPlugin } from './certificate-signing.ts';
import type { AdmissionAttributes, AdmissionContext } from './types.ts';

const csr = (certificate?: string): KubeObject => ({ metadata: { name: 'c1' }, spec: { signerName: 'example.com/signer' }, status: certificate ? { certificate } : {} });
const attrs = (object: KubeObject): AdmissionAttributes => ({
  operation: 'UPDATE',
  resource: R.certificatesigningrequests,
  subresource: 'status',
  name: 'c1',
  object,
  oldObject: csr(),
  dryRun: false,
  userInfo: { username: 'signer', groups: [] },
});
const allowSign = (name: string): AdmissionContext => ({ authorize: async (a) => ({ decision: a.verb === 'sign' && a.name === name ? 'allow' : 'noOpinion', reason: '' }) });

describe('CertificateSigning', () => {
  it('a /status write that sets the certificate needs sign on the signer (or its domain)', async () => {
    await expect(certificateSigningPlugin.validate?.(attrs(csr('Y2VydA==')), allowSign('example.com/*'))).resolves.toBeUndefined();
    await expect(certificateSigningPlugin.validate?.(attrs(csr('Y2VydA==')), allowSign('other.io/x'))).rejects.toMatchObject({
      reason: 'Forbidden',
      message: 'certificatesigningrequests.certificates.k8s.io "c1" is forbidden: user not permitted to sign requests with signerName "example.com/signer"',
    });
  });

  it('a /status write leaving the certificate as it was needs nothing', async () => {
    await expect(certificateSigningPlugin.validate?.(attrs(csr()), allowSign('nobody'))).resolves.toBeUndefined();
  });
});
