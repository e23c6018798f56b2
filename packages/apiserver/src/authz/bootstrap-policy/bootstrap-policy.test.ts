import { describe, expect, it } from 'vitest';
import { bootstrapPolicy, type ClusterRole, type PolicyRule } from './index.ts';
import { uncoveredRules, ruleCovers } from '../rbac-covers.ts';

const policy = bootstrapPolicy();
const clusterRole = (name: string): ClusterRole => {
  const r = policy.clusterRoles.find((c) => c.metadata.name === name);
  if (!r) throw new Error(`no ClusterRole ${name}`);
  return r;
};
const rulesOf = (name: string): PolicyRule[] => clusterRole(name).rules ?? [];

describe('bootstrap policy data (golden files of plugin/pkg/auth/authorizer/rbac/bootstrappolicy)', () => {
  it('has the well-known ClusterRoles, each labelled and annotated for auto-update', () => {
    const names = policy.clusterRoles.map((r) => r.metadata.name);
    for (const n of [
      'cluster-admin', 'admin', 'edit', 'view', 'system:aggregate-to-admin', 'system:aggregate-to-edit', 'system:aggregate-to-view',
      'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:monitoring', 'system:heapster', 'system:node',
      'system:node-proxier', 'system:kube-controller-manager', 'system:kube-scheduler', 'system:volume-scheduler',
      'system:node-bootstrapper', 'system:auth-delegator', 'system:kube-dns', 'system:kubelet-api-admin',
      'system:certificates.k8s.io:certificatesigningrequests:nodeclient', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
      'system:certificates.k8s.io:kube-apiserver-client-approver', 'system:certificates.k8s.io:kubelet-serving-approver',
      'system:service-account-issuer-discovery', 'system:controller:clusterrole-aggregation-controller',
      'system:controller:namespace-controller', 'system:controller:generic-garbage-collector',
    ]) expect(names).toContain(n);
    expect(new Set(names).size).toBe(names.length);
    for (const o of [...policy.clusterRoles, ...policy.clusterRoleBindings, ...policy.roles, ...policy.roleBindings]) {
      expect(o.metadata.labels).toMatchObject({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
      expect(o.metadata.annotations).toEqual({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    }
  });

  it('cluster-admin grants everything, resources and non-resource URLs', () => {
    expect(rulesOf('cluster-admin')).toEqual([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]);
  });

  it('admin, edit and view are aggregated, chained by their aggregate-to labels, with no rules of their own', () => {
    expect(clusterRole('admin')).toMatchObject({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } }] } });
    expect(clusterRole('edit').metadata.labels).toMatchObject({ 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' });
    expect(clusterRole('view').metadata.labels).toMatchObject({ 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' });
    expect(clusterRole('view').aggregationRule?.clusterRoleSelectors).toEqual([{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }]);
    for (const n of ['admin', 'edit', 'view']) expect(clusterRole(n).rules).toBeUndefined();
  });

  it('view never reads secrets; edit does', () => {
    const secretsGet = { verbs: ['get'], apiGroups: [''], resources: ['secrets'] };
    expect(uncoveredRules(rulesOf('system:aggregate-to-view'), [secretsGet])).toEqual([secretsGet]);
    expect(uncoveredRules(rulesOf('system:aggregate-to-edit'), [secretsGet])).toEqual([]);
    expect(rulesOf('system:aggregate-to-view')[0]).toEqual({
      verbs: ['get', 'list', 'watch'],
      apiGroups: [''],
      resources: ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status'],
    });
  });

  it('system:kube-scheduler may create leases but read and renew only its own', () => {
    const rules = rulesOf('system:kube-scheduler');
    expect(rules).toContainEqual({ verbs: ['create'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] });
    expect(rules).toContainEqual({ verbs: ['get', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['kube-scheduler'] });
    expect(rules[0]).toEqual({ verbs: ['create', 'patch', 'update'], apiGroups: ['', 'events.k8s.io'], resources: ['events'] });
    expect(rules).toContainEqual({ verbs: ['create'], apiGroups: [''], resources: ['bindings', 'pods/binding'] });
    // A hijack of another component's lease is not granted.
    expect(uncoveredRules(rules, [{ verbs: ['update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['kube-controller-manager'] }])).toHaveLength(1);
  });

  it('system:discovery, system:public-info-viewer and system:monitoring have the golden URL lists', () => {
    expect(rulesOf('system:discovery')).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'] },
    ]);
    expect(rulesOf('system:public-info-viewer')).toEqual([{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] }]);
    expect(rulesOf('system:monitoring')).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'] },
    ]);
  });

  it('system:node and the signer approvers match the golden rules', () => {
    expect(rulesOf('system:node')).toContainEqual({ verbs: ['create', 'delete', 'get', 'patch', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] });
    expect(rulesOf('system:node')).toHaveLength(22);
    expect(rulesOf('system:certificates.k8s.io:kubelet-serving-approver')).toEqual([
      { verbs: ['approve'], apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['kubernetes.io/kubelet-serving'] },
    ]);
  });

  it('binds the roles Kubernetes binds', () => {
    const binding = (n: string) => policy.clusterRoleBindings.find((b) => b.metadata.name === n);
    expect(binding('cluster-admin')?.subjects).toEqual([{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:masters' }]);
    expect(binding('system:public-info-viewer')?.subjects?.map((s) => s.name)).toEqual(['system:authenticated', 'system:unauthenticated']);
    expect(binding('system:discovery')?.subjects?.map((s) => s.name)).toEqual(['system:authenticated']);
    expect(binding('system:node')?.subjects).toBeUndefined();
    expect(binding('system:kube-scheduler')?.subjects).toEqual([{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:kube-scheduler' }]);
    // One binding per controller role, to the kube-system ServiceAccount of the same name.
    const controllers = policy.clusterRoles.filter((r) => r.metadata.name.startsWith('system:controller:'));
    for (const r of controllers) {
      const b = binding(r.metadata.name);
      expect(b?.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: r.metadata.name });
      expect(b?.subjects).toEqual([{ kind: 'ServiceAccount', name: r.metadata.name.slice('system:controller:'.length), namespace: 'kube-system' }]);
    }
  });

  it('has the kube-system and kube-public roles and bindings', () => {
    const roles = policy.roles.map((r) => `${r.metadata.namespace}/${r.metadata.name}`).sort();
    expect(roles).toEqual([
      'kube-public/system:controller:bootstrap-signer',
      'kube-system/extension-apiserver-authentication-reader',
      'kube-system/system::leader-locking-kube-controller-manager',
      'kube-system/system::leader-locking-kube-scheduler',
      'kube-system/system:controller:bootstrap-signer',
      'kube-system/system:controller:cloud-provider',
      'kube-system/system:controller:token-cleaner',
    ]);
    const reader = policy.roleBindings.find((b) => b.metadata.name === 'system::extension-apiserver-authentication-reader');
    expect(reader?.roleRef.name).toBe('extension-apiserver-authentication-reader');
    expect(reader?.subjects?.map((s) => s.name)).toEqual(['system:kube-controller-manager', 'system:kube-scheduler']);
    const publicSigner = policy.roleBindings.find((b) => b.metadata.namespace === 'kube-public');
    expect(publicSigner?.subjects).toEqual([{ kind: 'ServiceAccount', name: 'bootstrap-signer', namespace: 'kube-system' }]);
  });
});

describe('rule coverage (validation.Covers)', () => {
  it('honours wildcards, */subresource, resourceNames and URL prefixes', () => {
    expect(ruleCovers({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] })).toBe(true);
    expect(ruleCovers({ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] })).toBe(true);
    expect(ruleCovers({ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, { verbs: ['get'], apiGroups: [''], resources: ['pods'] })).toBe(false);
    expect(ruleCovers({ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] })).toBe(true);
    expect(ruleCovers({ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, { verbs: ['get'], nonResourceURLs: ['/healthz/etcd'] })).toBe(true);
    expect(ruleCovers({ verbs: ['get'], nonResourceURLs: ['/healthz'] }, { verbs: ['get'], nonResourceURLs: ['/healthz/etcd'] })).toBe(false);
  });
});
