// The lab's kubeconfig: plain http to the balancer with insecure-skip-tls-verify (client-node refuses http
// without it, and only then sends the token) and a token user; kubectl sends no credentials over http.
import fs from 'node:fs';
import { stringify } from 'yaml';

export function kubeconfigYaml(server: string, token = 'kemu-admin'): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kemu', cluster: { server, 'insecure-skip-tls-verify': true } }],
    contexts: [{ name: 'kemu', context: { cluster: 'kemu', user: 'kemu-admin', namespace: 'default' } }],
    'current-context': 'kemu',
    users: [{ name: 'kemu-admin', user: { token } }],
    preferences: {},
  });
}

export function writeKubeconfig(file: string, server: string): void {
  fs.writeFileSync(file, kubeconfigYaml(server), { mode: 0o600 });
}
