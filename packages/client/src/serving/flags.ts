// The flags kube-controller-manager and kube-scheduler share for their HTTPS health/metrics port: k8s.io/apiserver's
// SecureServingOptions (--bind-address, --secure-port, --cert-dir, --tls-*), DelegatingAuthenticationOptions and
// DelegatingAuthorizationOptions, with Kubernetes' names, usage strings and defaults (durations in ms). The
// components differ only in the port and in --authentication-tolerate-lookup-failure (true for the scheduler).

export interface ServingFlagDefaults {
  port: number;
  tolerateLookupFailure: boolean;
}

/** Flag specs for `parseFlags`/`parseCommandLine`; spread them into a component's flag table. */
export function servingFlags(d: ServingFlagDefaults) {
  return {
    'bind-address': {
      type: 'string',
      default: '0.0.0.0',
      usage:
        'The IP address on which to listen for the --secure-port port. The associated interface(s) must be reachable by the rest of the cluster, and by CLI/web clients. If blank or an unspecified address (0.0.0.0 or ::), all interfaces and IP address families will be used.',
    },
    'secure-port': { type: 'int', default: d.port, usage: "The port on which to serve HTTPS with authentication and authorization. If 0, don't serve HTTPS at all." },
    'cert-dir': {
      type: 'string',
      default: '',
      usage: 'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored.',
    },
    'tls-cert-file': {
      type: 'string',
      default: '',
      usage:
        'File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert). If HTTPS serving is enabled, and --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated for the public address and saved to the directory specified by --cert-dir.',
    },
    'tls-private-key-file': { type: 'string', default: '', usage: 'File containing the default x509 private key matching --tls-cert-file.' },
    'authentication-kubeconfig': {
      type: 'string',
      default: '',
      usage:
        "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create tokenreviews.authentication.k8s.io. This is optional. If empty, all token requests are considered to be anonymous and no client CA is looked up in the cluster.",
    },
    'authentication-token-webhook-cache-ttl': { type: 'duration', default: 10_000, usage: 'The duration to cache responses from the webhook token authenticator.' },
    'client-ca-file': {
      type: 'string',
      default: '',
      usage:
        'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.',
    },
    'requestheader-username-headers': { type: 'stringArray', default: ['x-remote-user'], usage: 'List of request headers to inspect for usernames. X-Remote-User is common.' },
    'requestheader-group-headers': { type: 'stringArray', default: ['x-remote-group'], usage: 'List of request headers to inspect for groups. X-Remote-Group is suggested.' },
    'requestheader-extra-headers-prefix': { type: 'stringArray', default: ['x-remote-extra-'], usage: 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.' },
    'requestheader-client-ca-file': {
      type: 'string',
      default: '',
      usage:
        'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.',
    },
    'requestheader-allowed-names': {
      type: 'stringArray',
      default: [],
      usage:
        'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.',
    },
    'authentication-skip-lookup': {
      type: 'bool',
      default: false,
      usage: 'If false, the authentication-kubeconfig will be used to lookup missing authentication configuration from the cluster.',
    },
    'authentication-tolerate-lookup-failure': {
      type: 'bool',
      default: d.tolerateLookupFailure,
      usage:
        'If true, failures to look up missing authentication configuration from the cluster are not considered fatal. Note that this can result in authentication that treats all requests as anonymous.',
    },
    'authorization-kubeconfig': {
      type: 'string',
      default: '',
      usage:
        "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create subjectaccessreviews.authorization.k8s.io. This is optional. If empty, all requests not skipped by authorization are forbidden.",
    },
    'authorization-webhook-cache-authorized-ttl': { type: 'duration', default: 10_000, usage: "The duration to cache 'authorized' responses from the webhook authorizer." },
    'authorization-webhook-cache-unauthorized-ttl': { type: 'duration', default: 10_000, usage: "The duration to cache 'unauthorized' responses from the webhook authorizer." },
    'authorization-always-allow-paths': {
      type: 'stringArray',
      default: ['/healthz', '/readyz', '/livez'],
      usage: "A list of HTTP paths to skip during authorization, i.e. these are authorized without contacting the 'core' kubernetes server.",
    },
  } as const;
}

/** The parsed values of `servingFlags` (a component's flag values carry them among its own). */
export interface ServingFlagValues {
  'bind-address': string;
  'secure-port': number;
  'cert-dir': string;
  'tls-cert-file': string;
  'tls-private-key-file': string;
  'authentication-kubeconfig': string;
  'authentication-token-webhook-cache-ttl': number;
  'client-ca-file': string;
  'requestheader-username-headers': readonly string[];
  'requestheader-group-headers': readonly string[];
  'requestheader-extra-headers-prefix': readonly string[];
  'requestheader-client-ca-file': string;
  'requestheader-allowed-names': readonly string[];
  'authentication-skip-lookup': boolean;
  'authentication-tolerate-lookup-failure': boolean;
  'authorization-kubeconfig': string;
  'authorization-webhook-cache-authorized-ttl': number;
  'authorization-webhook-cache-unauthorized-ttl': number;
  'authorization-always-allow-paths': readonly string[];
}

/**
 * The kubelet's equivalents (its own names and defaults: anonymous requests and AlwaysAllow unless told
 * otherwise, longer webhook caches). --cert-dir is Kubernetes' /var/lib/kubelet/pki; "" (kemu) keeps a
 * self-signed serving certificate in memory, and a generated one that cannot be written there stays in memory
 * too (emulated nodes may run unprivileged, several per host).
 */
export function kubeletServingFlags() {
  return {
    'tls-cert-file': {
      type: 'string',
      default: '',
      usage:
        'File containing x509 Certificate used for serving HTTPS (with intermediate certs, if any, concatenated after server cert). If --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated for the public address and saved to the directory passed to --cert-dir.',
    },
    'tls-private-key-file': { type: 'string', default: '', usage: 'File containing x509 private key matching --tls-cert-file.' },
    'cert-dir': {
      type: 'string',
      default: '/var/lib/kubelet/pki',
      usage: 'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored.',
    },
    'client-ca-file': {
      type: 'string',
      default: '',
      usage:
        'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.',
    },
    'anonymous-auth': {
      type: 'bool',
      default: true,
      usage:
        'Enables anonymous requests to the Kubelet server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.',
    },
    'authentication-token-webhook': { type: 'bool', default: false, usage: 'Use the TokenReview API to determine authentication for bearer tokens.' },
    'authentication-token-webhook-cache-ttl': { type: 'duration', default: 120_000, usage: 'The duration to cache responses from the webhook token authenticator.' },
    'authorization-mode': {
      type: 'string',
      default: 'AlwaysAllow',
      usage: 'Authorization mode for Kubelet server. Valid options are AlwaysAllow or Webhook. Webhook mode uses the SubjectAccessReview API to determine authorization.',
    },
    'authorization-webhook-cache-authorized-ttl': { type: 'duration', default: 300_000, usage: "The duration to cache 'authorized' responses from the webhook authorizer." },
    'authorization-webhook-cache-unauthorized-ttl': { type: 'duration', default: 30_000, usage: "The duration to cache 'unauthorized' responses from the webhook authorizer." },
  } as const;
}

export interface KubeletServingFlagValues {
  'bind-address': string;
  'secure-port': number;
  'tls-cert-file': string;
  'tls-private-key-file': string;
  'cert-dir': string;
  'client-ca-file': string;
  'anonymous-auth': boolean;
  'authentication-token-webhook': boolean;
  'authentication-token-webhook-cache-ttl': number;
  'authorization-mode': string;
  'authorization-webhook-cache-authorized-ttl': number;
  'authorization-webhook-cache-unauthorized-ttl': number;
}
