// CertificateApproval: approving or denying a CertificateSigningRequest (an update of its /approval
// subresource) needs `approve` on the signer it names (signers resource of certificates.k8s.io). The signer
// is read from the stored object, so changing signerName through /approval cannot dodge the check.
import { R } from '@kemu/api';
import type { AdmissionPlugin } from './types.ts';
import { isObj } from './types.ts';
import { admissionForbidden, isAuthorizedForSignerName } from './signer-authorization.ts';

export const certificateApprovalPlugin: AdmissionPlugin = {
  name: 'CertificateApproval',
  async validate(attrs, ctx) {
    if (attrs.operation !== 'UPDATE' || attrs.subresource !== 'approval' || attrs.resource !== R.certificatesigningrequests) return;
    const spec = attrs.oldObject?.spec;
    const signerName = isObj(spec) && typeof spec.signerName === 'string' ? spec.signerName : '';
    if (!(await isAuthorizedForSignerName(ctx, attrs.userInfo, 'approve', signerName)))
      throw admissionForbidden(attrs, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
  },
};
