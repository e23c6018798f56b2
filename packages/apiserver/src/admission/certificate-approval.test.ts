import { R, type KubeObject } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import type { Attributes } from '../authz/types.ts';
import { certificateApprovalPlugin } from './certificate-approval.ts';
import type { AdmissionAttributes, AdmissionContext } from './types.ts';

const csr = (signerName: string): KubeObject => ({ metadata: { name: 'c1' }, spec: { signerName } });
const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'UPDATE',
  resource: R.certificatesigningrequests,
  subresource: 'approval',
  name: 'c1',
  object: csr('example.com/changed'),
  oldObject: csr('kubernetes.io/kube-apiserver-client'),
  dryRun: false,
  userInfo: { username: 'jane', groups: ['system:authenticated'] },
  ...over,
});

/** An authorizer allowing `approve` on the listed signer names only, and recording what it was asked. */
function ctxAllowing(...names: string[]): AdmissionContext & { asked: Attributes[] } {
  const asked: Attributes[] = [];
  return {
    asked,
    authorize: async (a) => {
      asked.push(a);
      return { decision: a.verb === 'approve' && names.includes(a.name) ? 'allow' : 'noOpinion', reason: '' };
    },
  };
}

describe('CertificateApproval', () => {
  it('asks approve on signers/<signerName> of the stored object, then <domain>/*', async () => {
    const ctx = ctxAllowing('kubernetes.io/*');
    await certificateApprovalPlugin.validate?.(attrs(), ctx);
    expect(ctx.asked.map((a) => [a.verb, a.apiGroup, a.resource, a.name])).toEqual([
      ['approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/kube-apiserver-client'],
      ['approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/*'],
    ]);
  });

  it("refuses with Kubernetes' 403 message when neither is allowed", async () => {
    const p = certificateApprovalPlugin.validate?.(attrs(), ctxAllowing('example.com/changed'));
    await expect(p).rejects.toMatchObject({
      reason: 'Forbidden',
      message: 'certificatesigningrequests.certificates.k8s.io "c1" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"',
    });
  });

  it('leaves other writes alone', async () => {
    const ctx = ctxAllowing();
    await certificateApprovalPlugin.validate?.(attrs({ subresource: 'status' }), ctx);
    await certificateApprovalPlugin.validate?.(attrs({ subresource: undefined }), ctx);
    await certificateApprovalPlugin.validate?.(attrs({ resource: R.pods }), ctx);
    expect(ctx.asked).toEqual([]);
  });
});
