// What `kemu up` makes for TLS bootstrapping, against an in-process apiserver (no lab processes): the token Secret,
// seed 003's bindings, cluster-info and DIR/bootstrap-kubelet.kubeconfig — and what a restart keeps. Also the
// `kemu token` verbs' API side.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type KubeObject } from '@kemu/api';
import { RestClient } from '@kemu/client';
import { bootstrapTokenFromSecret, bootstrapTokenSecret, createToken, ensureLabBootstrap, labPkiFiles, listTokens, readBootstrapToken, tokenWithTtl } from '@kemu/kemu';
import { startInProcessApiserver, type InProcessApiserver } from '../support/in-process-apiserver.ts';

describe('the lab\'s TLS bootstrap objects', () => {
  let api: InProcessApiserver;
  let client: RestClient;
  let dataDir: string;
  const server = 'https://127.0.0.1:6443';
  beforeAll(async () => {
    api = await startInProcessApiserver('kemu-lab-bootstrap-');
    client = new RestClient({ server: api.url, qps: 0 });
    dataDir = path.join(api.dir, 'lab');
    fs.mkdirSync(path.join(dataDir, 'pki'), { recursive: true });
    fs.writeFileSync(labPkiFiles(dataDir).ca, 'CA PEM\n');
  });
  afterAll(async () => {
    await client?.close();
    await api?.close();
  });

  const secretOf = (token: string) => client.get<KubeObject>(R.secrets, 'kube-system', `bootstrap-token-${token.split('.')[0]}`);

  it('makes the token Secret, the three bindings, cluster-info and the bootstrap kubeconfig', async () => {
    const r = await ensureLabBootstrap(client, { dataDir, server });
    expect(r.token).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    const id = r.token.split('.')[0];
    expect(r.made).toEqual([
      `Secret kube-system/bootstrap-token-${id}`,
      'ClusterRoleBinding kubelet-bootstrap',
      'ClusterRoleBinding node-autoapprove-bootstrap',
      'ClusterRoleBinding node-autoapprove-certificate-rotation',
      'ClusterRoleBinding kube-apiserver:kubelet-apis',
      'ConfigMap kube-public/cluster-info',
      'Role kube-public/kubeadm:bootstrap-signer-clusterinfo',
      'RoleBinding kube-public/kubeadm:bootstrap-signer-clusterinfo',
      'StorageClass standard',
    ]);
    const secret = await secretOf(r.token);
    expect(secret.type).toBe('bootstrap.kubernetes.io/token');
    expect(bootstrapTokenFromSecret(secret).groups).toEqual(['system:bootstrappers:default-node-token', 'system:bootstrappers:worker', 'system:bootstrappers:ingress']);
    const crb = await client.get<KubeObject>(R.clusterrolebindings, undefined, 'node-autoapprove-certificate-rotation');
    expect(crb.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }]);
    const ci = await client.get<KubeObject>(R.configmaps, 'kube-public', 'cluster-info');
    expect((ci.data as { kubeconfig: string }).kubeconfig).toContain(`server: ${server}`);
    expect(readBootstrapToken(labPkiFiles(dataDir).bootstrapKubeconfig)).toBe(r.token);
  });

  it('keeps everything on a restart (the token is read back from the kubeconfig)', async () => {
    const before = readBootstrapToken(labPkiFiles(dataDir).bootstrapKubeconfig);
    const r = await ensureLabBootstrap(client, { dataDir, server });
    expect(r).toEqual({ token: before, made: [] });
  });

  it('re-creates a deleted token Secret with the same token, and replaces an expired one with a new token', async () => {
    const token = readBootstrapToken(labPkiFiles(dataDir).bootstrapKubeconfig) ?? '';
    await client.delete(R.secrets, 'kube-system', `bootstrap-token-${token.split('.')[0]}`);
    const again = await ensureLabBootstrap(client, { dataDir, server });
    expect(again.token).toBe(token);
    expect(again.made).toEqual([`Secret kube-system/bootstrap-token-${token.split('.')[0]}`]);
    const expired = bootstrapTokenSecret({ ...bootstrapTokenFromSecret(await secretOf(token)), expires: '2020-01-01T00:00:00Z' });
    await client.delete(R.secrets, 'kube-system', expired.metadata.name ?? '');
    await client.create(R.secrets, 'kube-system', expired);
    const fresh = await ensureLabBootstrap(client, { dataDir, server });
    expect(fresh.token).not.toBe(token);
    expect(readBootstrapToken(labPkiFiles(dataDir).bootstrapKubeconfig)).toBe(fresh.token);
  });

  it('updates cluster-info when the server changes', async () => {
    const r = await ensureLabBootstrap(client, { dataDir, server: 'https://127.0.0.9:6443' });
    expect(r.made).toEqual(['ConfigMap kube-public/cluster-info (updated)']);
  });

  it('creates tokens (refusing an existing id as kubeadm does) and lists them', async () => {
    const t = tokenWithTtl({ token: 'abcdef.0123456789abcdef', description: 'test', usages: ['authentication', 'signing'], groups: ['system:bootstrappers:default-node-token'] }, 3_600_000, Date.now());
    await createToken(client, t);
    await expect(createToken(client, t)).rejects.toThrow('a token with id "abcdef" already exists');
    const { tokens, errors } = await listTokens(client);
    expect(errors).toEqual([]);
    expect(tokens.find((x) => x.token === t.token)).toEqual(t);
  });
});
