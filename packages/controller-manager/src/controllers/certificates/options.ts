// The csrsigning controller's flags (Kubernetes' CSRSigningControllerOptions: names, help, the 8760h default)
// and their checks, spread into kube-controller-manager's flag table.
import type { FlagValues } from '@kemu/base';

const certHelp = (signer: string) =>
  `Filename containing a PEM-encoded X509 CA certificate used to issue certificates for the ${signer} signer.  If specified, --cluster-signing-{cert,key}-file must not be set.`;
const keyHelp = (signer: string) =>
  `Filename containing a PEM-encoded RSA or ECDSA private key used to sign certificates for the ${signer} signer.  If specified, --cluster-signing-{cert,key}-file must not be set.`;

export const CSR_SIGNING_FLAGS = {
  'cluster-signing-cert-file': {
    type: 'string',
    default: '',
    usage: 'Filename containing a PEM-encoded X509 CA certificate used to issue cluster-scoped certificates.  If specified, no more specific --cluster-signing-* flag may be specified.',
  },
  'cluster-signing-key-file': {
    type: 'string',
    default: '',
    usage: 'Filename containing a PEM-encoded RSA or ECDSA private key used to sign cluster-scoped certificates.  If specified, no more specific --cluster-signing-* flag may be specified.',
  },
  'cluster-signing-kubelet-serving-cert-file': { type: 'string', default: '', usage: certHelp('kubernetes.io/kubelet-serving') },
  'cluster-signing-kubelet-serving-key-file': { type: 'string', default: '', usage: keyHelp('kubernetes.io/kubelet-serving') },
  'cluster-signing-kubelet-client-cert-file': { type: 'string', default: '', usage: certHelp('kubernetes.io/kube-apiserver-client-kubelet') },
  'cluster-signing-kubelet-client-key-file': { type: 'string', default: '', usage: keyHelp('kubernetes.io/kube-apiserver-client-kubelet') },
  'cluster-signing-kube-apiserver-client-cert-file': { type: 'string', default: '', usage: certHelp('kubernetes.io/kube-apiserver-client') },
  'cluster-signing-kube-apiserver-client-key-file': { type: 'string', default: '', usage: keyHelp('kubernetes.io/kube-apiserver-client') },
  'cluster-signing-legacy-unknown-cert-file': { type: 'string', default: '', usage: certHelp('kubernetes.io/legacy-unknown') },
  'cluster-signing-legacy-unknown-key-file': { type: 'string', default: '', usage: keyHelp('kubernetes.io/legacy-unknown') },
  'cluster-signing-duration': { type: 'duration', default: 8760 * 3_600_000, usage: 'The max length of duration signed certificates will be given.  Individual CSRs may request shorter certs by setting spec.expirationSeconds.' },
} as const;

export type CsrSigningOptions = Omit<FlagValues<typeof CSR_SIGNING_FLAGS>, '_'>;

/** A per-signer flag pair: the flag-name stem and the name Kubernetes' validation messages use for it. */
export const PER_SIGNER_FILES = [
  { signer: 'kubernetes.io/kubelet-serving', stem: 'kubelet-serving', label: 'cluster-signing-kubelet-serving' },
  { signer: 'kubernetes.io/kube-apiserver-client-kubelet', stem: 'kubelet-client', label: 'cluster-signing-kube-apiserver-client' },
  { signer: 'kubernetes.io/kube-apiserver-client', stem: 'kube-apiserver-client', label: 'cluster-signing-kube-apiserver' },
  { signer: 'kubernetes.io/legacy-unknown', stem: 'legacy-unknown', label: 'cluster-signing-legacy-unknown' },
] as const;

type Stem = (typeof PER_SIGNER_FILES)[number]['stem'];

export function perSignerFiles(o: CsrSigningOptions, stem: Stem): { cert: string; key: string } {
  return { cert: o[`cluster-signing-${stem}-cert-file`], key: o[`cluster-signing-${stem}-key-file`] };
}

export function anySpecificFilesSet(o: CsrSigningOptions): boolean {
  return PER_SIGNER_FILES.some(({ stem }) => {
    const f = perSignerFiles(o, stem);
    return f.cert !== '' || f.key !== '';
  });
}

/** CSRSigningControllerOptions.Validate, with its messages (labels as Kubernetes spells them). */
export function validateCsrSigningOptions(o: CsrSigningOptions): string[] {
  const errs: string[] = [];
  for (const { stem, label } of PER_SIGNER_FILES) {
    const { cert, key } = perSignerFiles(o, stem);
    if (cert === '' && key !== '') errs.push(`"${label}": cannot specify key without cert`);
    if (cert !== '' && key === '') errs.push(`"${label}": cannot specify cert without key`);
  }
  const single = o['cluster-signing-cert-file'] !== '' || o['cluster-signing-key-file'] !== '';
  if (single && anySpecificFilesSet(o)) errs.push('cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time');
  return errs;
}
