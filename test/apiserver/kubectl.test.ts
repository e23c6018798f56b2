// The real kubectl against one kube-apiserver process (fresh HOME, so discovery is fetched anew).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './cluster.ts';
import { startKubectlCluster, type KubectlCluster } from './kubectl-cluster.ts';
import { startWebhookServer } from '../../packages/apiserver/src/testing/webhook-server.ts';

let k: KubectlCluster;

beforeAll(async () => {
  k = await startKubectlCluster();
  const pod = { metadata: { name: 'web-1', labels: { app: 'web' } }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] } };
  expect((await api(`${k.A.url}/api/v1/namespaces/default/pods`, 'POST', pod)).status).toBe(201);
}, 60_000);
afterAll(async () => k?.stop());

const deployment = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: nginx}]
`;

describe('kubectl', () => {
  it('get namespaces, pods -A, -o wide, -o yaml', async () => {
    const ns = await k.kubectl('get', 'namespaces');
    expect(ns.code).toBe(0);
    for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) expect(ns.stdout).toContain(n);
    const all = await k.kubectl('get', 'pods', '-A');
    expect(all.stdout).toMatch(/NAMESPACE\s+NAME/);
    expect(all.stdout).toMatch(/default\s+web-1/);
    const wide = await k.kubectl('get', 'pods', '-o', 'wide');
    expect(wide.code).toBe(0);
    expect(wide.stdout).toContain('web-1');
    const yaml = await k.kubectl('get', 'pod', 'web-1', '-o', 'yaml');
    expect(yaml.stdout).toContain('name: web-1');
    expect(yaml.stdout).toContain('nodeName: node-1');
  });

  it('api-resources and get --raw /readyz', async () => {
    const r = await k.kubectl('api-resources');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/);
    expect(r.stdout).toMatch(/pods\s+po\s+v1\s+true\s+Pod/);
    const raw = await k.kubectl('get', '--raw', '/readyz');
    expect(raw.stdout.trim()).toBe('ok');
  });

  it('create -f, apply -f twice, label, annotate, scale, describe, delete', async () => {
    const cmFile = path.join(k.dir, 'cm.yaml');
    writeFileSync(cmFile, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-file\ndata:\n  k: v\n');
    const c = await k.kubectl('create', '-f', cmFile);
    expect(c.stdout.trim()).toBe('configmap/from-file created');
    const depFile = path.join(k.dir, 'dep.yaml');
    writeFileSync(depFile, deployment(2));
    expect((await k.kubectl('apply', '-f', depFile)).stdout.trim()).toBe('deployment.apps/web created');
    expect((await k.kubectl('apply', '-f', depFile)).stdout.trim()).toBe('deployment.apps/web unchanged');
    writeFileSync(depFile, deployment(3));
    expect((await k.kubectl('apply', '-f', depFile)).stdout.trim()).toBe('deployment.apps/web configured');
    expect((await k.kubectl('label', 'deployment', 'web', 'tier=front')).stdout.trim()).toBe('deployment.apps/web labeled');
    expect((await k.kubectl('annotate', 'deployment', 'web', 'note=x')).stdout.trim()).toBe('deployment.apps/web annotated');
    expect((await k.kubectl('scale', 'deployment', 'web', '--replicas=5')).stdout.trim()).toBe('deployment.apps/web scaled');
    const d = await api(`${k.A.url}/apis/apps/v1/namespaces/default/deployments/web`, 'GET');
    expect((d.body.spec as { replicas: number }).replicas).toBe(5);
    expect(d.body.metadata.labels).toMatchObject({ app: 'web', tier: 'front' });
    expect(d.body.metadata.generation).toBe(3);
    const desc = await k.kubectl('describe', 'deployment', 'web');
    expect(desc.code).toBe(0);
    expect(desc.stdout).toMatch(/Replicas:\s+5 desired/);
    expect((await k.kubectl('delete', 'configmap', 'from-file')).stdout.trim()).toBe('configmap "from-file" deleted');
    expect((await k.kubectl('delete', '-f', depFile)).stdout.trim()).toBe('deployment.apps "web" deleted');
    const gone = await k.kubectl('get', 'deployment', 'web');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('Error from server (NotFound): deployments.apps "web" not found');
  });

  it('get -w prints rows for new objects as they come', async () => {
    expect((await api(`${k.A.url}/api/v1/namespaces/default/configmaps`, 'POST', { metadata: { name: 'pre' } })).status).toBe(201);
    const child = spawn('kubectl', ['get', 'configmaps', '-w'], { env: k.env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const deadline = Date.now() + 20_000;
      while (!out.includes('pre') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('NAME');
      expect((await api(`${k.A.url}/api/v1/namespaces/default/configmaps`, 'POST', { metadata: { name: 'watched' } })).status).toBe(201);
      while (!out.includes('watched') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('watched');
      expect(out.match(/NAME/g)?.length).toBe(1);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('deletes a bound pod gracefully: kubectl waits until it is gone', async () => {
    const del = k.kubectl('delete', 'pod', 'web-1', '--wait=true');
    // The "kubelet": once the pod is marked, finish it with grace 0.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const p = await api(`${k.A.url}/api/v1/namespaces/default/pods/web-1`, 'GET');
      if (p.body.metadata.deletionTimestamp) break;
      if (Date.now() > deadline) throw new Error('pod never marked for deletion');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await api(`${k.A.url}/api/v1/namespaces/default/pods/web-1`, 'DELETE', { gracePeriodSeconds: 0 })).status).toBe(200);
    const res = await del;
    expect(res.stdout.trim()).toBe('pod "web-1" deleted');
  });
  it('a validating webhook on the machine: get validatingwebhookconfigurations, a create it denies, its warning', async () => {
    const wh = await startWebhookServer((r) =>
      r.name === 'refused' ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'refused by the test webhook' } } : { allowed: true, warnings: ['seen by the test webhook'] },
    );
    const file = path.join(k.dir, 'webhook.yaml');
    writeFileSync(
      file,
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: deny-test}
webhooks:
- name: deny.test.example.com
  clientConfig: {url: "${wh.url('/validate')}", caBundle: ${wh.caBundle}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: hooked}}
  sideEffects: None
  admissionReviewVersions: [v1]
`,
    );
    try {
      expect((await k.kubectl('apply', '-f', file)).stdout.trim()).toBe('validatingwebhookconfiguration.admissionregistration.k8s.io/deny-test created');
      const get = await k.kubectl('get', 'validatingwebhookconfigurations');
      expect(get.stdout).toMatch(/^NAME\s+WEBHOOKS\s+AGE\ndeny-test\s+1\s+\d+s\n$/);
      expect((await k.kubectl('create', 'namespace', 'hooked')).code).toBe(0);
      const refused = await k.kubectl('create', 'configmap', 'refused', '-n', 'hooked');
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe('error: failed to create configmap: admission webhook "deny.test.example.com" denied the request: refused by the test webhook');
      const allowed = await k.kubectl('create', 'configmap', 'allowed', '-n', 'hooked');
      expect(allowed.stdout.trim()).toBe('configmap/allowed created');
      expect(allowed.stderr.trim()).toBe('Warning: seen by the test webhook');
    } finally {
      await k.kubectl('delete', '-f', file);
      await wh.close();
    }
  });
});
