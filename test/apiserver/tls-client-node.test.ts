// HTTPS as Kubernetes serves it: with --tls-cert-file/--tls-private-key-file (the lab's PKI, made by @kemu/pki)
// and --client-ca-file, used by kubectl and by @kubernetes/client-node's informer (list, then watch from the
// list's resourceVersion) with the admin kubeconfig, the CA verified, on configmaps and on a custom resource; a self-signed pair in --cert-dir when no
// certificate is given; a client certificate from another CA does not break the handshake; a serving, key or CA
// file it cannot use stops start-up with exit 1 and the file named.
import * as k8s from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor } from '@kemu/base/testing/processes';
import { ensureClusterPki, selfSignedServingCert } from '@kemu/pki';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiserver, type ApiserverProc } from '../support/apiserver.ts';
import { crdObject, version } from '../../packages/apiserver/src/testing/crd.ts';

let dir: string;
let pki: string;
let A: ApiserverProc;
let kubeconfig: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kemu-tls-'));
  const port = await freePort();
  await ensureClusterPki({ dataDir: dir, server: `https://127.0.0.1:${port}` });
  pki = path.join(dir, 'pki');
  A = await startApiserver('apiserver-0', path.join(dir, 'state.db'), {
    port,
    scheme: 'https',
    extra: ['--hostname-override=apiserver-0', `--tls-cert-file=${pki}/apiserver.pem`, `--tls-private-key-file=${pki}/apiserver-key.pem`, `--client-ca-file=${pki}/ca.pem`],
  });
  kubeconfig = path.join(dir, 'admin.kubeconfig');
}, 60_000);
afterAll(async () => {
  await A?.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function kubectl(args: string[], config = kubeconfig): Promise<string> {
  const home = path.join(dir, 'home');
  mkdirSync(home, { recursive: true });
  return new Promise<string>((resolve, reject) =>
    execFile('kubectl', args, { env: { ...process.env, HOME: home, KUBECONFIG: config } }, (e, so, se) => (e ? reject(new Error(se)) : resolve(so))),
  );
}

describe('HTTPS', () => {
  it('serves kubectl over TLS (the admin kubeconfig: CA verified, client certificate sent)', async () => {
    const out = await kubectl(['get', 'namespaces', '-o', 'name']);
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

  it('feeds a client-node informer on a custom resource (CustomObjectsApi), through a version other than the storage one', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } };
    const crd = crdObject({ group: 'informer.example.com', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [version('v1', schema), version('v1beta1', schema, { storage: false })] });
    await ext.createCustomResourceDefinition({ body: crd as unknown as k8s.V1CustomResourceDefinition });
    const at = (version: string) => ({ group: 'informer.example.com', version, namespace: 'default', plural: 'gadgets' });
    const list = () => custom.listNamespacedCustomObject(at('v1beta1')) as Promise<k8s.KubernetesListObject<k8s.KubernetesObject>>;
    const served = Date.now() + 15_000;
    while (!(await list().then(() => true, () => false))) {
      if (Date.now() > served) throw new Error('custom resource not served');
      await new Promise((r) => setTimeout(r, 50));
    }
    const seen: string[] = [];
    const note = (what: string) => (o: k8s.KubernetesObject) => seen.push(`${what}:${o.metadata?.name}:${o.apiVersion}`);
    const informer = k8s.makeInformer(kc, '/apis/informer.example.com/v1beta1/namespaces/default/gadgets', list);
    informer.on('add', note('add'));
    informer.on('update', note('update'));
    informer.on('delete', note('delete'));
    await informer.start();
    try {
      const body = (size: number) => ({ apiVersion: 'informer.example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { size } });
      await custom.createNamespacedCustomObject({ ...at('v1'), body: body(1) });
      // client-node sends a JSON patch by default.
      await custom.patchNamespacedCustomObject({ ...at('v1'), name: 'g', body: [{ op: 'replace', path: '/spec/size', value: 2 }] });
      await custom.deleteNamespacedCustomObject({ ...at('v1'), name: 'g' });
      const deadline = Date.now() + 15_000;
      while (!seen.some((s) => s.startsWith('delete:')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const v = 'informer.example.com/v1beta1';
      expect(seen).toEqual([`add:g:${v}`, `update:g:${v}`, `delete:g:${v}`]);
    } finally {
      await informer.stop();
    }
  });

  it('a client certificate from another CA does not break the handshake: the request is refused with 401', async () => {
    const stranger = await selfSignedServingCert({ host: 'mallory' });
    const agent = new Agent({ connect: { ca: readFileSync(`${pki}/ca.pem`), cert: stranger.certPem, key: stranger.keyPem } });
    try {
      const r = await request(`${A.url}/readyz`, { dispatcher: agent });
      // A presented certificate that does not verify is a bad credential (Kubernetes' x509 authenticator).
      expect(JSON.parse(await r.body.text())).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      expect(r.statusCode).toBe(401);
    } finally {
      await agent.close();
    }
  });

  it('the seed 000 curl recipe, from the pki directory', async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile('curl', ['-s', '--cacert', 'ca.pem', '--cert', 'admin.pem', '--key', 'admin-key.pem', `${A.url}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases`], { cwd: pki }, (e, so, se) => (e ? reject(new Error(se)) : resolve(so))),
    );
    const list = JSON.parse(out) as { kind: string; items: Array<{ metadata: { name: string } }> };
    expect(list.kind).toBe('LeaseList');
    expect(list.items.map((l) => l.metadata.name).some((n) => n.startsWith('apiserver-'))).toBe(true);
  });

  it('without --tls-cert-file: a self-signed apiserver.crt/apiserver.key in --cert-dir, reused on restart', async () => {
    const certDir = path.join(dir, 'cert-dir');
    const start = () => startApiserver('apiserver-self-signed', path.join(dir, 'self.db'), { scheme: 'https', extra: [`--cert-dir=${certDir}`] });
    const first = await start();
    const cert = readFileSync(path.join(certDir, 'apiserver.crt'), 'utf8');
    expect(existsSync(path.join(certDir, 'apiserver.key'))).toBe(true);
    expect(first.proc.output()).toContain(`Generated self-signed cert (${certDir}/apiserver.crt, ${certDir}/apiserver.key)`);
    await first.proc.kill();
    const second = await start();
    expect(readFileSync(path.join(certDir, 'apiserver.crt'), 'utf8')).toBe(cert);
    expect(second.proc.output()).not.toContain('Generated self-signed cert');
    await second.proc.kill();
  }, 60_000);
});

describe('bad serving files: exit 1, the file named', () => {
  const cases: Array<[string, () => string[], RegExp]> = [
    ['a malformed certificate', () => [`--tls-cert-file=${write('bad.crt', 'not a certificate\n')}`, `--tls-private-key-file=${pki}/apiserver-key.pem`], /unable to load server certificate: .*bad\.crt: no CERTIFICATE block found/],
    ['a missing key', () => [`--tls-cert-file=${pki}/apiserver.pem`, `--tls-private-key-file=${dir}/missing-key.pem`], /unable to load server certificate: .*missing-key\.pem: no such file/],
    ['a key of another certificate', () => [`--tls-cert-file=${pki}/apiserver.pem`, `--tls-private-key-file=${pki}/admin-key.pem`], /admin-key\.pem: the private key does not match the certificate/],
    ['an unreadable client CA', () => [`--tls-cert-file=${pki}/apiserver.pem`, `--tls-private-key-file=${pki}/apiserver-key.pem`, `--client-ca-file=${dir}/no-ca.pem`], /unable to load client CA file ".*no-ca\.pem": open .*no-ca\.pem: no such file or directory/],
    ['a malformed client CA', () => [`--tls-cert-file=${pki}/apiserver.pem`, `--tls-private-key-file=${pki}/apiserver-key.pem`, `--client-ca-file=${write('ca-garbage.pem', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')}`], /unable to load client CA file ".*ca-garbage\.pem": .*does not parse/],
  ];
  function write(name: string, text: string): string {
    const f = path.join(dir, name);
    writeFileSync(f, text);
    return f;
  }
  it.each(cases)('%s', async (_what, flags, message) => {
    const p = startProcess('apiserver-bad-tls', BIN.apiserver, ['--bind-address=127.0.0.1', `--secure-port=${await freePort()}`, '--datastore-endpoint=memory://', ...flags()]);
    const code = await waitFor('exit', () => p.child.exitCode ?? undefined, 30_000);
    expect(code).toBe(1);
    expect(p.output()).toMatch(message);
  });
});
