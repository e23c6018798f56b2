// CertificateSubjectRestriction: nobody may ask the kube-apiserver-client signer for a certificate in the
// system:masters group (O=system:masters), which would grant unrestricted access whoever approved it.
import { R, SIGNER_KUBE_APISERVER_CLIENT } from '@kemu/api';
import { decodePem, parseCsrDerSync } from '@kemu/pki';
import { SYSTEM_MASTERS } from '../authn/user.ts';
import type { AdmissionPlugin } from './types.ts';
import { isObj } from './types.ts';
import { admissionForbidden } from './signer-authorization.ts';

export const certificateSubjectRestrictionPlugin: AdmissionPlugin = {
  name: 'CertificateSubjectRestriction',
  validate(attrs) {
    if (attrs.operation !== 'CREATE' || attrs.subresource || attrs.resource !== R.certificatesigningrequests) return;
    const spec = attrs.object?.spec;
    if (!isObj(spec) || spec.signerName !== SIGNER_KUBE_APISERVER_CLIENT) return;
    let orgs: readonly string[];
    try {
      const block = decodePem(Buffer.from(typeof spec.request === 'string' ? spec.request : '', 'base64').toString('latin1'))[0];
      if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
      orgs = parseCsrDerSync(block.der).subject.O ?? [];
    } catch (e) {
      throw admissionForbidden(attrs, `failed to parse CSR: ${(e as Error).message}`);
    }
    if (orgs.includes(SYSTEM_MASTERS)) throw admissionForbidden(attrs, `use of ${SIGNER_KUBE_APISERVER_CLIENT} signer with ${SYSTEM_MASTERS} group is not allowed`);
  },
};
