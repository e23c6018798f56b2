import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse } from 'yaml';
import { createApiServer, ensureBootstrapPolicy, ensureSystemNamespaces } from '@kemu/apiserver';
import { silentLogger } from '@kemu/base';
import { MemoryBackend } from '@kemu/store';
import { bootstrapBindings, clusterInfoObjects, kubeletApiBinding } from './bootstrap-objects.ts';
import { SEED_003_BOOTSTRAP_BINDINGS_YAML as SEED_BINDINGS } from '../../../test/support/seed-003.ts';


describe('bootstrap objects', () => {
  it("are seed 003's three ClusterRoleBindings exactly", () => {
    expect(bootstrapBindings()).toEqual(parseAllDocuments(SEED_BINDINGS).map((d) => d.toJS()));
  });

  it('let the apiservers\' kubelet client (apiserver.pem: CN kube-apiserver, O Kubernetes) pass a kubelet\'s SubjectAccessReview under RBAC', async () => {
    const srv = await createApiServer({ backend: new MemoryBackend(), logger: silentLogger(), authorizationModes: ['RBAC'] });
    try {
      await srv.start();
      await ensureSystemNamespaces(srv.ctx.registry);
      await ensureBootstrapPolicy(srv.ctx.registry, silentLogger());
      const sar = async (subresource: string, verb = 'get') => {
        const r = await srv.app.inject({
          method: 'POST',
          url: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'kube-apiserver', groups: ['Kubernetes', 'system:authenticated'], resourceAttributes: { verb, resource: 'nodes', subresource, name: 'worker-0' } } }),
        });
        return (JSON.parse(r.body) as { status: { allowed: boolean } }).status.allowed;
      };
      expect(await sar('proxy')).toBe(false);
      const b = await srv.app.inject({ method: 'POST', url: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(kubeletApiBinding()) });
      expect(b.statusCode).toBe(201);
      expect(await sar('proxy')).toBe(true);
      expect(await sar('log')).toBe(true);
      expect(await sar('proxy', 'create')).toBe(true);
    } finally {
      await srv.close();
    }
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
