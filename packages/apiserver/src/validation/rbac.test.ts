// RBAC validation messages, word for word as pkg/apis/rbac/validation gives them.
import type { KubeObject } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import { defaultBinding } from '../defaults/rbac.ts';
import { validateClusterRole, validateClusterRoleBinding, validateRole, validateRoleBinding, validateRoleBindingUpdate, validateRoleUpdate } from './rbac.ts';

const G = 'rbac.authorization.k8s.io';
const msgs = (causes: { field?: string; message?: string }[]) => causes.map((c) => `${c.field}: ${c.message}`);
const role = (rules: unknown[], name = 'r'): KubeObject => ({ metadata: { name, namespace: 'ns' }, rules });
const binding = (o: Record<string, unknown>, namespace?: string): KubeObject => ({ metadata: { name: 'b', ...(namespace ? { namespace } : {}) }, ...o });

describe('Role and ClusterRole validation', () => {
  it('accepts resource rules, and non-resource rules in ClusterRoles', () => {
    expect(validateRole(role([{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }]))).toEqual([]);
    expect(validateClusterRole({ metadata: { name: 'system:x' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }] })).toEqual([]);
  });

  it('refuses rules as Kubernetes does', () => {
    expect(msgs(validateRole(role([{ apiGroups: [''], resources: ['pods'] }, { verbs: ['get'] }, { verbs: ['get'], apiGroups: [''], resources: ['a', 'b'], resourceNames: ['n'] }])))).toEqual([
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[1].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[1].resources: Required value: resource rules must supply at least one resource',
      'rules[2].resourceNames: Required value: resource names cannot apply to multiple resources',
    ]);
    expect(msgs(validateRole(role([{ verbs: ['get'], nonResourceURLs: ['/x'], resources: ['pods'] }])))).toEqual([
      'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs',
      'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs',
    ]);
  });

  it('names are path segments, so colons are fine and slashes are not', () => {
    expect(validateRole(role([], 'system:controller:x'))).toEqual([]);
    expect(msgs(validateRole(role([], 'a/b')))).toEqual(["metadata.name: Invalid value: \"a/b\": may not contain '/'"]);
  });

  it('an update keeps the name', () => {
    const old = role([]);
    const next = role([], 'other');
    expect(msgs(validateRoleUpdate(next, old))).toContain('metadata.name: Invalid value: "other": field is immutable');
  });
});

describe('RoleBinding and ClusterRoleBinding validation', () => {
  const ref = (kind: string, name = 'view') => ({ apiGroup: G, kind, name });

  it('defaults then accepts users, groups and ServiceAccounts', () => {
    const b = binding({ roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'jane' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa', apiGroup: '' }] }, 'ns');
    defaultBinding(b);
    expect(b.roleRef).toEqual(ref('ClusterRole'));
    expect(b.subjects).toEqual([
      { kind: 'User', name: 'jane', apiGroup: G },
      { kind: 'Group', name: 'devs', apiGroup: G },
      { kind: 'ServiceAccount', name: 'sa' },
    ]);
    expect(validateRoleBinding(b)).toEqual([]);
  });

  it('refuses bad roleRefs and subjects with Kubernetes messages', () => {
    expect(msgs(validateRoleBinding(binding({ roleRef: { apiGroup: 'x', kind: 'Pod', name: '' }, subjects: [{ kind: 'User', name: '' }, { kind: 'ServiceAccount', name: 'Bad_Name', apiGroup: G }] }, 'ns')))).toEqual([
      'roleRef.apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"',
      'roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"',
      'roleRef.name: Required value',
      'subjects[0].name: Required value',
      'subjects[0].name: Invalid value: "": user name cannot be empty',
      'subjects[0].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"',
      expect.stringMatching(/^subjects\[1\]\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/),
      'subjects[1].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""',
    ]);
    expect(msgs(validateClusterRoleBinding(binding({ roleRef: ref('Role'), subjects: [{ kind: 'ServiceAccount', name: 'sa' }] })))).toEqual([
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      'subjects[0].namespace: Required value',
    ]);
  });

  it('roleRef never changes', () => {
    const old = binding({ roleRef: ref('Role', 'a') }, 'ns');
    expect(msgs(validateRoleBindingUpdate(binding({ roleRef: ref('Role', 'b') }, 'ns'), old))).toEqual([
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"b"}: cannot change roleRef',
    ]);
    expect(validateRoleBindingUpdate(binding({ roleRef: ref('Role', 'a'), subjects: [{ kind: 'User', apiGroup: G, name: 'x' }] }, 'ns'), old)).toEqual([]);
  });
});
