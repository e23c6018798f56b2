import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse } from 'yaml';
import { bootstrapBindings, clusterInfoObjects } from './bootstrap-objects.ts';
import { SEED_003_BOOTSTRAP_BINDINGS_YAML as SEED_BINDINGS } from '../../../test/support/seed-003.ts';


describe('bootstrap objects', () => {
  it("are seed 003's three ClusterRoleBindings exactly", () => {
    expect(bootstrapBindings()).toEqual(parseAllDocuments(SEED_BINDINGS).map((d) => d.toJS()));
  });

  it("make kubeadm's cluster-info: a kubeconfig with one unnamed cluster (server and CA) and nothing else, readable by system:anonymous", () => {
    const { configMap, role, roleBinding } = clusterInfoObjects('https://127.0.0.1:6443', 'CA PEM\n');
    expect(configMap.metadata).toEqual({ name: 'cluster-info', namespace: 'kube-public' });
    // Byte for byte what kubeadm's clientcmd.Write puts there (the bootstrap signer signs these bytes).
    expect((configMap.data as { kubeconfig: string }).kubeconfig).toBe(
      `apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: ${Buffer.from('CA PEM\n').toString('base64')}\n    server: https://127.0.0.1:6443\n  name: ""\ncontexts: null\ncurrent-context: ""\nkind: Config\npreferences: {}\nusers: null\n`,
    );
    const kc = parse((configMap.data as { kubeconfig: string }).kubeconfig) as Record<string, unknown>;
    expect(kc).toEqual({
      apiVersion: 'v1',
      clusters: [{ cluster: { 'certificate-authority-data': Buffer.from('CA PEM\n').toString('base64'), server: 'https://127.0.0.1:6443' }, name: '' }],
      contexts: null,
      'current-context': '',
      kind: 'Config',
      preferences: {},
      users: null,
    });
    expect(role.rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] }]);
    expect(roleBinding.subjects).toEqual([{ kind: 'User', name: 'system:anonymous' }]);
    expect(roleBinding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kubeadm:bootstrap-signer-clusterinfo' });
  });
});
