// A kubeconfig with its certificates embedded, as `kubectl config set-cluster/set-credentials --embed-certs=true`
// writes it (keys in kubectl's order): cluster "kubernetes", the user, and the context "<user>@kubernetes"; the
// user holds a client certificate and key, or a bearer token (`set-credentials --token`).
import { stringify } from 'yaml';

export interface EmbeddedKubeconfig {
  server: string;
  caPem: string;
  user: string;
  clientCertPem: string;
  clientKeyPem: string;
  cluster?: string;
}

const b64 = (pem: string) => Buffer.from(pem).toString('base64');

export function embeddedKubeconfigYaml(k: EmbeddedKubeconfig): string {
  return kubeconfigYaml(k, { 'client-certificate-data': b64(k.clientCertPem), 'client-key-data': b64(k.clientKeyPem) });
}

/** A bearer-token kubeconfig, as `kubectl config set-credentials <user> --token=<token>` writes it (seed 003's bootstrap-kubelet.kubeconfig). */
export interface TokenKubeconfig {
  server: string;
  caPem: string;
  user: string;
  token: string;
  cluster?: string;
}

export function tokenKubeconfigYaml(k: TokenKubeconfig): string {
  return kubeconfigYaml(k, { token: k.token });
}

function kubeconfigYaml(k: { server: string; caPem: string; user: string; cluster?: string }, credentials: Record<string, string>): string {
  const cluster = k.cluster ?? 'kubernetes';
  const context = `${k.user}@${cluster}`;
  return stringify({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': b64(k.caPem), server: k.server }, name: cluster }],
    contexts: [{ context: { cluster, user: k.user }, name: context }],
    'current-context': context,
    kind: 'Config',
    preferences: {},
    users: [{ name: k.user, user: credentials }],
  }, { lineWidth: 0 });
}
