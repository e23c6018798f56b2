// kubectl get csr (printCertificateSigningRequest): the signer, the requesting user, the requested duration
// (HumanDuration of expirationSeconds) and a condition summary: Denied over Approved over Pending, then
// ",Failed" and ",Issued" once a certificate is there.
import type { TablePrinter } from '../strategy/types.ts';
import { humanDuration, since } from './duration.ts';
import { ageCol, list, nameCol, obj, str } from './util.ts';

/** extractCSRStatus: "Pending", "Approved,Issued", "Denied", "Approved,Failed"… */
export function csrCondition(status: unknown): string {
  const types = new Set(list(obj(status).conditions).map((c) => c.type));
  let out = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) out += ',Failed';
  if (str(obj(status).certificate) !== '') out += ',Issued';
  return out;
}

export const certificateSigningRequestPrinter: TablePrinter = {
  columns: [
    nameCol,
    ageCol,
    {
      name: 'SignerName',
      type: 'string',
      description:
        'Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it\'s a kubelet client certificate, it is assigned\n    "kubernetes.io/kube-apiserver-client-kubelet".\n 2. If it\'s a kubelet serving certificate, it is assigned\n    "kubernetes.io/kubelet-serving".\n 3. Otherwise, it is assigned "kubernetes.io/legacy-unknown".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.',
    },
    { name: 'Requestor', type: 'string', description: 'Base64-encoded PKCS#10 CSR data' },
    {
      name: 'RequestedDuration',
      type: 'string',
      description:
        'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.',
    },
    { name: 'Condition', type: 'string', description: 'Conditions applied to the request, such as approval or denial.' },
  ],
  cells(csr, now) {
    const spec = obj(csr.spec);
    const exp = spec.expirationSeconds;
    return [
      csr.metadata.name ?? '',
      since(csr.metadata.creationTimestamp, now),
      str(spec.signerName) || '<none>',
      str(spec.username),
      typeof exp === 'number' ? humanDuration(exp * 1000) : '<none>',
      csrCondition(csr.status),
    ];
  },
};
