// A stock kubectl 1.32 (protobuf request bodies, no JSON fallback) against a real kube-apiserver process:
// typed creates succeed and the stored objects read back with the fields and defaults JSON would give;
// `auth can-i` and `auth whoami` get their answers.
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKubectl132, kubeconfigFor } from './kubectl-bin.ts';

const kubectl132 = findKubectl132();
if (!kubectl132) console.warn('kubectl-132.test.ts skipped: no kubectl 1.32 binary (set KUBECTL_132 or install the google-cloud-sdk kubectl)');

describe.skipIf(!kubectl132)('kubectl 1.32 typed creates (protobuf bodies)', () => {
  let proc: Proc | undefined;
  let dir: string;
  let port: number;

  function kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const all = ['--kubeconfig', path.join(dir, 'kubeconfig'), '--cache-dir', path.join(dir, 'cache'), ...args];
    return new Promise((resolve) => {
      execFile(kubectl132 as string, all, { timeout: 30_000, env: { ...process.env, HOME: dir } }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
  }

  async function getJSON(...args: string[]): Promise<Record<string, any>> {
    const r = await kubectl('get', ...args, '-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as Record<string, any>;
  }

  async function create(args: string[], out: string): Promise<void> {
    const r = await kubectl('create', ...args);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(out);
    expect(r.code).toBe(0);
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kemu-kubectl132-'));
    port = await freePort();
    proc = startProcess('kube-apiserver', BIN.apiserver, ['--secure-port=0', '--insecure-port', String(port), '--bind-address', '127.0.0.1', '--datastore-endpoint', 'memory://']);
    writeFileSync(path.join(dir, 'kubeconfig'), kubeconfigFor(port));
    await waitFor('apiserver ready', async () => {
      if (proc?.child.exitCode !== null) throw new Error(`apiserver exited: ${proc?.output()}`);
      const r = await fetch(`http://127.0.0.1:${port}/readyz`);
      await r.text();
      return r.status === 200;
    }, 30_000);
  }, 60_000);

  afterAll(async () => {
    await proc?.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('create namespace', async () => {
    await create(['namespace', 'pb-ns'], 'namespace/pb-ns created');
    const ns = await getJSON('namespace', 'pb-ns');
    expect(ns.metadata.name).toBe('pb-ns');
    expect(ns.metadata.uid).toMatch(/.+/);
    expect(ns.status.phase).toBe('Active');
  });

  it('create configmap --from-literal', async () => {
    await create(['configmap', 'cm1', '--from-literal=a=b', '--from-literal=c=d'], 'configmap/cm1 created');
    const cm = await getJSON('configmap', 'cm1');
    expect(cm.data).toEqual({ a: 'b', c: 'd' });
    expect(cm.metadata.namespace).toBe('default');
  });

  it('create secret generic', async () => {
    await create(['secret', 'generic', 's1', '--from-literal=user=admin', '--from-literal=pw=s3cr3t'], 'secret/s1 created');
    const s = await getJSON('secret', 's1');
    expect(s.type).toBe('Opaque');
    expect(Buffer.from(s.data.user, 'base64').toString()).toBe('admin');
    expect(Buffer.from(s.data.pw, 'base64').toString()).toBe('s3cr3t');
  });

  it('create serviceaccount', async () => {
    await create(['serviceaccount', 'sa1'], 'serviceaccount/sa1 created');
    const sa = await getJSON('serviceaccount', 'sa1');
    expect(sa.metadata.name).toBe('sa1');
    expect(sa.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('create deployment --image=nginx --replicas=2', async () => {
    await create(['deployment', 'web', '--image=nginx', '--replicas=2', '--port=80'], 'deployment.apps/web created');
    const d = await getJSON('deployment', 'web');
    expect(d.metadata.labels).toEqual({ app: 'web' });
    expect(d.spec.replicas).toBe(2);
    expect(d.spec.selector).toEqual({ matchLabels: { app: 'web' } });
    // Defaults applied as for a JSON body.
    expect(d.spec.strategy.type).toBe('RollingUpdate');
    expect(d.spec.revisionHistoryLimit).toBe(10);
    const [c] = d.spec.template.spec.containers;
    expect(c.name).toBe('nginx');
    expect(c.image).toBe('nginx');
    expect(c.ports).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
    expect(c.imagePullPolicy).toBe('Always');
    expect(d.spec.template.spec.restartPolicy).toBe('Always');
  });

  it('create deployment --replicas=0 keeps the explicit zero', async () => {
    await create(['deployment', 'idle', '--image=busybox', '--replicas=0'], 'deployment.apps/idle created');
    expect((await getJSON('deployment', 'idle')).spec.replicas).toBe(0);
  });

  it('create service clusterip', async () => {
    await create(['service', 'clusterip', 'svc1', '--tcp=80:8080'], 'service/svc1 created');
    const svc = await getJSON('service', 'svc1');
    expect(svc.spec.type).toBe('ClusterIP');
    expect(svc.spec.ports).toEqual([{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }]);
    expect(svc.spec.selector).toEqual({ app: 'svc1' });
    expect(svc.spec.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  });

  it('create service nodeport --node-port', async () => {
    await create(['service', 'nodeport', 'np1', '--tcp=80:8080', '--node-port=30080'], 'service/np1 created');
    const svc = await getJSON('service', 'np1');
    expect(svc.spec.type).toBe('NodePort');
    expect(svc.spec.ports[0].nodePort).toBe(30080);
  });

  it('create priorityclass', async () => {
    await create(['priorityclass', 'pc1', '--value=1000', '--description=test'], 'priorityclass.scheduling.k8s.io/pc1 created');
    const pc = await getJSON('priorityclass', 'pc1');
    expect(pc.value).toBe(1000);
    expect(pc.description).toBe('test');
    expect(pc.preemptionPolicy).toBe('PreemptLowerPriority');
  });

  it('drain --disable-eviction deletes pods with a protobuf DeleteOptions body', async () => {
    const post = async (url: string, body: unknown) => {
      const r = await fetch(`http://127.0.0.1:${port}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await r.text();
      return r.status;
    };
    expect(await post('/api/v1/nodes', { metadata: { name: 'pb-node' } })).toBe(201);
    expect(await post('/api/v1/namespaces/default/pods', { metadata: { name: 'doomed' }, spec: { nodeName: 'pb-node', containers: [{ name: 'c', image: 'busybox' }] } })).toBe(201);
    const r = await kubectl('drain', 'pb-node', '--force', '--disable-eviction', '--grace-period=0', '--timeout=20s');
    expect(r.stdout).toContain('pod/doomed deleted');
    expect(r.stdout).toContain('node/pb-node drained');
    expect(r.code).toBe(0);
    const gone = await fetch(`http://127.0.0.1:${port}/api/v1/namespaces/default/pods/doomed`);
    await gone.text();
    expect(gone.status).toBe(404);
  });

  it('auth can-i create pods (a protobuf SelfSubjectAccessReview) prints yes', async () => {
    const r = await kubectl('auth', 'can-i', 'create', 'pods');
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('yes');
    expect(r.code).toBe(0);
    const nonResource = await kubectl('auth', 'can-i', 'get', '/healthz');
    expect(nonResource.stdout.trim()).toBe('yes');
    expect(nonResource.code).toBe(0);
  });

  it('auth whoami (a protobuf SelfSubjectReview) prints the admin user', async () => {
    const r = await kubectl('auth', 'whoami');
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/Username\s+system:unsecured/);
    expect(r.stdout).toMatch(/Groups\s+\[system:masters system:authenticated\]/);
    expect(r.code).toBe(0);
  });

  it('validation still answers for protobuf bodies (invalid name → 422)', async () => {
    const r = await kubectl('create', 'configmap', 'Bad_Name', '--from-literal=a=b');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Invalid value: "Bad_Name"/);
  });
});
