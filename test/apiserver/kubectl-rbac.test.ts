// kubectl create role|clusterrole|rolebinding|clusterrolebinding (typed clients: protobuf bodies) and
// kubectl get of the four RBAC kinds, with Kubernetes' columns and validation messages.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './cluster.ts';
import { startKubectlCluster, type KubectlCluster } from './kubectl-cluster.ts';

let k: KubectlCluster;

beforeAll(async () => {
  k = await startKubectlCluster();
}, 60_000);
afterAll(async () => k?.stop());

describe('kubectl and RBAC kinds', () => {
  it('create role and get roles (NAME, CREATED AT)', async () => {
    const c = await k.kubectl('create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods,pods/log');
    expect(c.stderr).toBe('');
    expect(c.stdout.trim()).toBe('role.rbac.authorization.k8s.io/pod-reader created');
    const g = await k.kubectl('get', 'roles');
    expect(g.stdout).toMatch(/^NAME\s+CREATED AT\npod-reader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
    const y = await k.kubectl('get', 'role', 'pod-reader', '-o', 'json');
    expect(JSON.parse(y.stdout).rules).toEqual([{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] }]);
  });

  it('create clusterrole with resource names and non-resource URLs, and an aggregation rule', async () => {
    const a = await k.kubectl('create', 'clusterrole', 'cm-one', '--verb=get', '--resource=configmaps', '--resource-name=one');
    expect(a.stdout.trim()).toBe('clusterrole.rbac.authorization.k8s.io/cm-one created');
    const b = await k.kubectl('create', 'clusterrole', 'health', '--verb=get', '--non-resource-url=/healthz,/readyz/*');
    expect(b.stdout.trim()).toBe('clusterrole.rbac.authorization.k8s.io/health created');
    const c = await k.kubectl('create', 'clusterrole', 'agg', '--aggregation-rule=rbac.example.com/aggregate-to-agg=true');
    expect(c.code).toBe(0);
    const got = JSON.parse((await k.kubectl('get', 'clusterrole', 'agg', '-o', 'json')).stdout);
    expect(got.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-agg': 'true' } }] });
    const g = await k.kubectl('get', 'clusterroles', 'cm-one', 'health');
    expect(g.stdout).toMatch(/^NAME\s+CREATED AT\ncm-one\s+\S+Z\nhealth\s+\S+Z\n$/);
  });

  it('create rolebinding and clusterrolebinding; get shows ROLE and, wide, the subjects', async () => {
    const rb = await k.kubectl('create', 'rolebinding', 'read-pods', '--role=pod-reader', '--user=jane', '--group=devs', '--serviceaccount=default:robot');
    expect(rb.stdout.trim()).toBe('rolebinding.rbac.authorization.k8s.io/read-pods created');
    const crb = await k.kubectl('create', 'clusterrolebinding', 'health-all', '--clusterrole=health', '--group=system:authenticated');
    expect(crb.stdout.trim()).toBe('clusterrolebinding.rbac.authorization.k8s.io/health-all created');
    const g = await k.kubectl('get', 'rolebindings');
    expect(g.stdout).toMatch(/^NAME\s+ROLE\s+AGE\nread-pods\s+Role\/pod-reader\s+\d+s\n$/);
    const w = await k.kubectl('get', 'rolebinding', 'read-pods', '-o', 'wide');
    expect(w.stdout).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\nread-pods\s+Role\/pod-reader\s+\d+s\s+jane\s+devs\s+default\/robot\n$/);
    const cw = await k.kubectl('get', 'clusterrolebinding', 'health-all', '-o', 'wide');
    expect(cw.stdout).toMatch(/health-all\s+ClusterRole\/health\s+\d+s\s+system:authenticated/);
    // The v1 defaults: User and Group subjects get the RBAC group, ServiceAccounts the core group.
    const subjects = JSON.parse((await k.kubectl('get', 'rolebinding', 'read-pods', '-o', 'json')).stdout).subjects;
    expect(subjects).toEqual([
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' },
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
      { kind: 'ServiceAccount', name: 'robot', namespace: 'default' },
    ]);
  });

  it('describe role and rolebinding print the rules and subjects', async () => {
    const r = await k.kubectl('describe', 'role', 'pod-reader');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/PolicyRule:\n\s+Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
    expect(r.stdout).toMatch(/pods\/log\s+\[\]\s+\[\]\s+\[get list watch\]/);
    const b = await k.kubectl('describe', 'rolebinding', 'read-pods');
    expect(b.code).toBe(0);
    expect(b.stdout).toMatch(/Role:\n\s+Kind:\s+Role\n\s+Name:\s+pod-reader/);
    expect(b.stdout).toMatch(/ServiceAccount\s+robot\s+default/);
  });

  it('apply -f and apply --server-side of a Role and a RoleBinding, then a changed rule', async () => {
    const file = path.join(k.dir, 'rbac.yaml');
    const doc = (verbs: string) => `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: applied, namespace: default}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [${verbs}]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: applied, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: applied}
subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: jane}]
`;
    writeFileSync(file, doc('get'));
    const a = await k.kubectl('apply', '-f', file);
    expect(a.stdout).toBe('role.rbac.authorization.k8s.io/applied created\nrolebinding.rbac.authorization.k8s.io/applied created\n');
    writeFileSync(file, doc('get, list'));
    const b = await k.kubectl('apply', '-f', file);
    expect(b.stdout).toBe('role.rbac.authorization.k8s.io/applied configured\nrolebinding.rbac.authorization.k8s.io/applied unchanged\n');
    const ss = await k.kubectl('apply', '--server-side', '--force-conflicts', '-f', file);
    expect(ss.code).toBe(0);
    const rules = JSON.parse((await k.kubectl('get', 'role', 'applied', '-o', 'json')).stdout).rules;
    expect(rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
  });

  it('explain role.rules and clusterrolebinding.subjects', async () => {
    const r = await k.kubectl('explain', 'role.rules');
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/GROUP:\s+rbac.authorization.k8s.io\nKIND:\s+Role\nVERSION:\s+v1/);
    expect(r.stdout).toMatch(/nonResourceURLs\s+<\[\]string>/);
    const s = await k.kubectl('explain', 'clusterrolebinding.subjects');
    expect(s.stdout).toMatch(/namespace\s+<string>/);
  });

  it('refuses a changed roleRef and a rule without verbs with Kubernetes messages', async () => {
    const base = `${k.A.url}/apis/rbac.authorization.k8s.io/v1`;
    const cur = (await api(`${base}/namespaces/default/rolebindings/read-pods`, 'GET')).body as unknown as { roleRef: { name: string } };
    cur.roleRef.name = 'other';
    const put = await api(`${base}/namespaces/default/rolebindings/read-pods`, 'PUT', cur);
    expect(put.status).toBe(422);
    expect(put.body.message).toBe(
      'RoleBinding.rbac.authorization.k8s.io "read-pods" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef',
    );
    // RBAC kinds allow create-on-update: a PUT of a missing object creates it (201); a ConfigMap's is 404.
    const created = await api(`${base}/namespaces/default/roles/by-put`, 'PUT', { metadata: { name: 'by-put' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
    expect(created.status).toBe(201);
    expect((created.body.metadata as { namespace?: string }).namespace).toBe('default');
    expect((await api(`${k.A.url}/api/v1/namespaces/default/configmaps/by-put`, 'PUT', { metadata: { name: 'by-put' } })).status).toBe(404);
    const bad = await api(`${base}/clusterroles`, 'POST', { metadata: { name: 'bad' }, rules: [{ apiGroups: [''], resources: ['pods'] }] });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('ClusterRole.rbac.authorization.k8s.io "bad" is invalid: rules[0].verbs: Required value: verbs must contain at least one value');
    const crb = await api(`${base}/clusterrolebindings`, 'POST', {
      metadata: { name: 'sa-no-ns' },
      roleRef: { kind: 'Role', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot' }, { kind: 'Robot', name: 'r2' }],
    });
    expect(crb.status).toBe(422);
    expect(crb.body.message).toBe(
      'ClusterRoleBinding.rbac.authorization.k8s.io "sa-no-ns" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", subjects[0].namespace: Required value, subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"]',
    );
  });
});
