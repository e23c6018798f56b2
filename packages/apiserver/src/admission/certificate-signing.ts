// CertificateSigning: a /status update of a CertificateSigningRequest that changes status.certificate needs
// `sign` on the signer the stored request names (signers resource of certificates.k8s.io).
import { R } from '@kemu/api';
import type { AdmissionPlugin } from './types.ts';
import { isObj } from './types.ts';
import { admissionForbidden, isAuthorizedForSignerName } from './signer-authorization.ts';

const certificateOf = (status: unknown): unknown => (isObj(status) ? status.certificate : undefined);

export const certificateSigningPlugin: AdmissionPlugin = {
  name: 'CertificateSigning',
  async validate(attrs, ctx) {
    if (attrs.operation !== 'UPDATE' || attrs.subresource !== 'status' || attrs.resource !== R.certificatesigningrequests) return;
    if ((certificateOf(attrs.oldObject?.status) ?? '') === (certificateOf(attrs.object?.status) ?? '')) return;
    const spec = attrs.oldObject?.spec;
    const signerName = isObj(spec) && typeof spec.signerName === 'string' ? spec.signerName : '';
    if (!(await isAuthorizedForSignerName(ctx, attrs.userInfo, 'sign', signerName)))
      throw admissionForbidden(attrs, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
  },
};
