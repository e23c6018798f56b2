// The flags of the identity controllers (bootstrap-signer, token-cleaner, root-ca-certificate-publisher,
// serviceaccount-token): Kubernetes' names, defaults and help, spread into FLAGS.
export const IDENTITY_FLAGS = {
  'cluster-name': { type: 'string', default: 'kubernetes', usage: 'The instance prefix for the cluster.' },
  'root-ca-file': {
    type: 'string',
    default: '',
    usage: "If set, this root certificate authority will be included in service account's token secret. This must be a valid PEM-encoded CA bundle.",
  },
  'service-account-private-key-file': {
    type: 'string',
    default: '',
    usage: 'Filename containing a PEM-encoded private RSA or ECDSA key used to sign service account tokens.',
  },
} as const;
