import { R, type KubeObject } from '@kemu/api';
import { createCsr, generatePrivateKey } from '@kemu/pki';
import { describe, expect, it } from 'vitest';
import { certificateSubjectRestrictionPlugin } from './certificate-subject-restriction.ts';
import type { AdmissionAttributes } from './types.ts';

async function create(signerName: string, orgs: string[]): Promise<AdmissionAttributes> {
  const pem = (await createCsr({ CN: 'x', O: orgs }, await generatePrivateKey({ algo: 'ecdsa', size: 256 }))).toString('pem');
  const object: KubeObject = { metadata: { name: 'c1' }, spec: { signerName, request: Buffer.from(pem).toString('base64') } };
  return { operation: 'CREATE', resource: R.certificatesigningrequests, name: 'c1', object, dryRun: false };
}

describe('CertificateSubjectRestriction', () => {
  it('refuses a kube-apiserver-client request for system:masters', async () => {
    const bad = await create('kubernetes.io/kube-apiserver-client', ['devs', 'system:masters']);
    expect(() => certificateSubjectRestrictionPlugin.validate?.(bad, {})).toThrow(
      'certificatesigningrequests.certificates.k8s.io "c1" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
  });

  it('lets other groups and other signers through', async () => {
    const devs = await create('kubernetes.io/kube-apiserver-client', ['devs']);
    expect(() => certificateSubjectRestrictionPlugin.validate?.(devs, {})).not.toThrow();
    const other = await create('example.com/signer', ['system:masters']);
    expect(() => certificateSubjectRestrictionPlugin.validate?.(other, {})).not.toThrow();
  });
});
