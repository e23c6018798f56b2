// HTTPS with --tls-cert-file/--tls-private-key-file (self-signed, insecure-skip-tls-verify), used by
// kubectl and by @kubernetes/client-node's informer (list, then watch from the list's resourceVersion).
import * as k8s from '@kubernetes/client-node';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplica, type Replica } from './cluster.ts';

let dir: string;
let A: Replica;
let kubeconfig: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kemu-tls-'));
  const cert = path.join(dir, 'tls.crt');
  const key = path.join(dir, 'tls.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=kube-apiserver', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  A = await startReplica(path.join(dir, 'state.db'), 'apiserver-0', [`--tls-cert-file=${cert}`, `--tls-private-key-file=${key}`], 'https');
  kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: k, cluster: {server: "${A.url}", insecure-skip-tls-verify: true}}]\ncontexts: [{name: k, context: {cluster: k, user: k, namespace: default}}]\ncurrent-context: k\nusers: [{name: k, user: {token: t}}]\n`,
  );
}, 60_000);
afterAll(async () => {
  await A?.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('HTTPS', () => {
  it('serves kubectl over TLS', async () => {
    const home = path.join(dir, 'home');
    mkdirSync(home, { recursive: true });
    const out = await new Promise<string>((resolve, reject) =>
      execFile('kubectl', ['get', 'namespaces', '-o', 'name'], { env: { ...process.env, HOME: home, KUBECONFIG: kubeconfig } }, (e, so, se) => (e ? reject(new Error(se)) : resolve(so))),
    );
    expect(out).toContain('namespace/default');
  });

  it('feeds a client-node informer: add, update, delete', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const seen: string[] = [];
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default' }));
    informer.on('add', (o: k8s.V1ConfigMap) => seen.push(`add:${o.metadata?.name}`));
    informer.on('update', (o: k8s.V1ConfigMap) => seen.push(`update:${o.metadata?.name}`));
    informer.on('delete', (o: k8s.V1ConfigMap) => seen.push(`delete:${o.metadata?.name}`));
    await informer.start();
    try {
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'inf' }, data: { a: '1' } } });
      await core.replaceNamespacedConfigMap({ namespace: 'default', name: 'inf', body: { metadata: { name: 'inf' }, data: { a: '2' } } });
      await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'inf' });
      const deadline = Date.now() + 15_000;
      while (!seen.includes('delete:inf') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(seen).toEqual(['add:inf', 'update:inf', 'delete:inf']);
    } finally {
      await informer.stop();
    }
  });
});
