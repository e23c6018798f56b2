// The kubelet's TLS bootstrapping and certificate rotation flags (Kubernetes' names, defaults and usage text).
// --cert-dir comes with the serving flags (@kemu/client's kubeletServingFlags): it holds both the serving pair
// and the client certificate the bootstrap obtains.

export const CERTIFICATE_FLAGS = {
  'bootstrap-kubeconfig': {
    type: 'string',
    default: '',
    usage:
      'Path to a kubeconfig file that will be used to get client certificate for kubelet. If the file specified by --kubeconfig does not exist, the bootstrap kubeconfig is used to request a client certificate from the API server. On success, a kubeconfig file referencing the generated client certificate and key is written to the path specified by --kubeconfig. The client certificate and key file will be stored in the directory pointed by --cert-dir.',
  },
  'rotate-certificates': {
    type: 'bool',
    default: false,
    usage: 'Auto rotate the kubelet client certificates by requesting new certificates from the kube-apiserver when the certificate expiration approaches.',
  },
  'rotate-server-certificates': {
    type: 'bool',
    default: false,
    usage:
      'Auto-request and rotate the kubelet serving certificates by requesting new certificates from the kube-apiserver when the certificate expiration approaches. Requires the RotateKubeletServerCertificate feature gate to be enabled, and approval of the submitted CertificateSigningRequest objects.',
  },
} as const;
