// kube-apiserver's --kubelet-* flags (KubeletConfig in pkg/kubeapiserver/options), checked at start-up as
// kube-apiserver loads them, and the client configuration they make: the client certificate the apiserver
// presents to kubelets, the CA it verifies their serving certificates against (none: no verification, as in
// Kubernetes), which node address it dials and how long a dial may take.
import fs from 'node:fs';
import type { Logger } from '@kemu/base';
import { parseCertificates } from '@kemu/pki';
import { goReadFileError } from '@kemu/base';
import { checkClientPair, type FlagFailure } from '../compat-flags.ts';

export const DEFAULT_KUBELET_PREFERRED_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'] as const;
/** kube-apiserver's KubeletConfig.Port: used when a Node reports no daemonEndpoints.kubeletEndpoint.Port. */
export const DEFAULT_KUBELET_PORT = 10250;

export const KUBELET_CLIENT_FLAGS = {
  'kubelet-client-certificate': { type: 'string', default: '', usage: 'Path to a client cert file for TLS.' },
  'kubelet-client-key': { type: 'string', default: '', usage: 'Path to a client key file for TLS.' },
  'kubelet-certificate-authority': { type: 'string', default: '', usage: 'Path to a cert file for the certificate authority.' },
  'kubelet-preferred-address-types': { type: 'stringArray', default: [...DEFAULT_KUBELET_PREFERRED_ADDRESS_TYPES], usage: 'List of the preferred NodeAddressTypes to use for kubelet connections.' },
  'kubelet-timeout': { type: 'duration', default: 5000, usage: 'Timeout for kubelet operations.' },
} as const;

export interface KubeletClientFlagValues {
  'kubelet-client-certificate': string;
  'kubelet-client-key': string;
  'kubelet-certificate-authority': string;
  'kubelet-preferred-address-types': string[];
  'kubelet-timeout': number;
}

/** What the apiserver's kubelet client needs (kubeletclient.KubeletClientConfig). */
export interface KubeletClientConfig {
  /** PEM client certificate and key; absent: the apiserver presents none. */
  cert?: Buffer;
  key?: Buffer;
  /** PEM CA bundle for the kubelets' serving certificates; absent: they are not verified. */
  ca?: Buffer;
  preferredAddressTypes: readonly string[];
  defaultPort: number;
  /** How long a connection to a kubelet may take (--kubelet-timeout, the dialer's timeout). */
  dialTimeoutMs: number;
  /** How long the TLS handshake may take once connected (default Go's 10 s; tests shorten it). */
  tlsHandshakeTimeoutMs?: number;
}

/** The first failure kube-apiserver would stop on, or undefined when the flags are fine. */
export function checkKubeletClientFlags(f: KubeletClientFlagValues): FlagFailure | undefined {
  const pair = checkClientPair(f['kubelet-client-certificate'], f['kubelet-client-key']);
  if (pair) return pair;
  const ca = f['kubelet-certificate-authority'];
  if (ca !== '') {
    let text: string;
    try {
      text = fs.readFileSync(ca, 'utf8');
    } catch (e) {
      return { code: 1, message: goReadFileError(ca, e) };
    }
    try {
      if (parseCertificates(text, ca).length === 0) throw new Error('no certificate');
    } catch {
      return { code: 1, message: 'unable to load root certificates: unable to parse bytes as PEM block' };
    }
  }
  return undefined;
}

/** The client configuration from checked flags (checkKubeletClientFlags first). */
export function kubeletClientConfig(f: KubeletClientFlagValues): KubeletClientConfig {
  const [cert, key, ca] = [f['kubelet-client-certificate'], f['kubelet-client-key'], f['kubelet-certificate-authority']];
  return {
    // Kubernetes uses the pair only when both are given.
    ...(cert !== '' && key !== '' ? { cert: fs.readFileSync(cert), key: fs.readFileSync(key) } : {}),
    ...(ca !== '' ? { ca: fs.readFileSync(ca) } : {}),
    preferredAddressTypes: [...f['kubelet-preferred-address-types']],
    defaultPort: DEFAULT_KUBELET_PORT,
    dialTimeoutMs: f['kubelet-timeout'],
  };
}

/** A certificate without its key (or the reverse) is ignored, as Kubernetes ignores it: say so once. */
export function warnUnpairedKubeletClientFlags(f: KubeletClientFlagValues, logger: Pick<Logger, 'warn'>): void {
  if ((f['kubelet-client-certificate'] === '') !== (f['kubelet-client-key'] === '')) {
    logger.warn({}, '--kubelet-client-certificate and --kubelet-client-key are used only together; the one given is ignored');
  }
}
