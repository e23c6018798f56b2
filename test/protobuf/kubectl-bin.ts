// Locates a stock kubectl 1.32 (it sends protobuf bodies): $KUBECTL_132, or the versioned binary next to
// the google-cloud-sdk dispatcher found on PATH. undefined when there is none (tests then skip).
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';

export function findKubectl132(): string | undefined {
  const fromEnv = process.env.KUBECTL_132;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const dispatcher = path.join(dir, 'kubectl');
    if (!dir || !existsSync(dispatcher)) continue;
    const candidate = path.join(path.dirname(realpathSync(dispatcher)), 'kubectl.1.32');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** A kubeconfig for http://127.0.0.1:port that both kubectl and client-node accept. */
export function kubeconfigFor(port: number): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: emu, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]`,
    'contexts: [{name: emu, context: {cluster: emu, user: emu, namespace: default}}]',
    'current-context: emu',
    'users: [{name: emu, user: {token: anything}}]',
    '',
  ].join('\n');
}
