// Test helper: a one-cluster kubeconfig file for kubectl and the kemu binaries.
import { writeFileSync } from 'node:fs';

export interface KubeconfigOptions {
  /** The context's namespace; none by default. */
  namespace?: string;
  /** A bearer token user (kemu admits any); no user by default. */
  token?: string;
  /** insecure-skip-tls-verify, for a server with a self-signed certificate. */
  insecure?: boolean;
}

export function writeKubeconfig(file: string, server: string, o: KubeconfigOptions = {}): string {
  const cluster = o.insecure ? `{server: "${server}", insecure-skip-tls-verify: true}` : `{server: "${server}"}`;
  const context = ['cluster: kemu', ...(o.token === undefined ? [] : ['user: kemu']), ...(o.namespace === undefined ? [] : [`namespace: ${o.namespace}`])].join(', ');
  const lines = ['apiVersion: v1', 'kind: Config', `clusters: [{name: kemu, cluster: ${cluster}}]`, `contexts: [{name: kemu, context: {${context}}}]`, 'current-context: kemu'];
  if (o.token !== undefined) lines.push(`users: [{name: kemu, user: {token: ${o.token}}}]`);
  writeFileSync(file, [...lines, ''].join('\n'));
  return file;
}
