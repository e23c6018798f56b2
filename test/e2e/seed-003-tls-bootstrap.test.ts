// Seed 003 section 8 (TLS bootstrapping) replayed as written, on seed 003's own units: its kube-apiserver
// (etcd with TLS), its kube-controller-manager (`--controllers=*,bootstrapsigner,tokencleaner`, the cluster
// signing CA, --root-ca-file, --service-account-private-key-file, per-controller ServiceAccounts) and its
// kube-scheduler. The test builds the bootstrap kubeconfig with the seed's four `kubectl config` commands,
// creates bootstrap.secret.yaml with `kubectl create -f`, and starts a kubelet with only
// --bootstrap-kubeconfig: its client CSR is auto-approved and signed, it writes its certificate and
// kubeconfig, registers as system:node:<name> and goes Ready; then `kubectl get cs` is Healthy and a pod runs on it. Also what the
// controllers publish (kube-root-ca.crt, the signed cluster-info, filled ServiceAccount token Secrets), and the
// refusals a learner meets (an unknown token is 401, the bootstrap identity cannot list pods), and the
// kubernetes.io task that issues a user's certificate through a CSR.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { compactVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@kemu/base/testing/ports';
import { startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { etcdMissing, opensslMissing, startEtcd, type TestEtcd } from '@kemu/store/testing/etcd-server';
import { ensureClusterPki, readCertAndKey } from '@kemu/pki';
import { kubectlEnv, runKubectl, type KubectlResult } from '../support/kubectl.ts';
import { BIN, SEED_003_APISERVER_FLAGS, SEED_003_SCHEDULER_FLAGS, adminTls, seed003BootstrapSecretYaml, seedArgs, startReady } from '../support/seed-003.ts';
import { SEED_003_KCM, unitArgs } from '../controller-manager/seed-units.ts';

const TOKEN_ID = 'c8ad9c';
const TOKEN_SECRET = '2e4d610cf3e7426e';
const NODE = 'worker-1';

/** Seed 003 section 8.2's bootstrap.secret.yaml with the example token of 8.1. */
const BOOTSTRAP_SECRET_YAML = seed003BootstrapSecretYaml(TOKEN_ID, TOKEN_SECRET);

const missing = etcdMissing() ?? opensslMissing();

function ok(r: KubectlResult): string {
  expect(r.code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return r.stdout;
}

describe.skipIf(missing)(`seed 003 section 8: TLS bootstrapping${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let dir = '';
  let etcd: TestEtcd | undefined;
  const procs: Proc[] = [];
  let base = '';
  let admin: Agent;
  let env: NodeJS.ProcessEnv;
  let kubelet: Proc | undefined;
  const kubectl = (...args: string[]) => runKubectl(env, args);
  const bootstrapKubeconfig = () => path.join(dir, 'bootstrap-kubelet.kubeconfig');
  const certDir = () => path.join(dir, 'kubelet-pki');
  const kubeletKubeconfig = () => path.join(dir, 'kubelet.kubeconfig');

  async function api(p: string, o: { method?: string; body?: unknown; agent?: Agent; token?: string } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const r = await request(`${base}${p}`, { method: (o.method ?? 'GET') as 'GET', dispatcher: o.agent ?? admin, headers, ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }) });
    const text = await r.body.text();
    return { status: r.statusCode, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-seed003-boot-'));
    etcd = await startEtcd({ tls: true });
    const port = await freePort();
    base = `https://127.0.0.1:${port}`;
    await ensureClusterPki({ dataDir: dir, serviceClusterIpRange: '10.96.0.0/12,fd00:1111::/112', server: base });
    const tls = etcd.tls as NonNullable<TestEtcd['tls']>;
    admin = new Agent({ connect: adminTls(dir) });
    const apiserverArgs = seedArgs(SEED_003_APISERVER_FLAGS, dir, {
      files: { '/etc/etcd/ssl/etcd-ca.pem': tls.caFile, '/etc/etcd/ssl/etcd.pem': tls.certFile, '/etc/etcd/ssl/etcd-key.pem': tls.keyFile },
      set: { 'bind-address': '127.0.0.1', 'secure-port': String(port), 'etcd-servers': etcd.url },
    });
    procs.push(await startReady('kube-apiserver-seed003', BIN.apiserver, apiserverArgs, base, admin));
    // The seed's units listen on their default ports on 0.0.0.0; here each gets loopback and a free port.
    const kubeconfigs = { '/etc/kubernetes/controller-manager.kubeconfig': path.join(dir, 'controller-manager.kubeconfig'), '/etc/kubernetes/scheduler.kubeconfig': path.join(dir, 'scheduler.kubeconfig') };
    const cmPort = await freePort();
    procs.push(startProcess('kube-controller-manager-seed003', BIN.controllerManager, [...seedArgs(unitArgs(SEED_003_KCM), dir, { files: kubeconfigs, set: { 'bind-address': '127.0.0.1' } }), `--secure-port=${cmPort}`]));
    const schedPort = await freePort();
    procs.push(startProcess('kube-scheduler-seed003', BIN.scheduler, [...seedArgs(SEED_003_SCHEDULER_FLAGS, dir, { files: kubeconfigs, set: { 'bind-address': '127.0.0.1' } }), `--secure-port=${schedPort}`]));
    env = kubectlEnv(dir, path.join(dir, 'admin.kubeconfig'));
  }, 90_000);

  afterAll(async () => {
    for (const p of [kubelet, ...procs].reverse()) await p?.kill('SIGKILL');
    await admin?.close();
    await etcd?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('8.1: the four `kubectl config` commands write the bootstrap kubeconfig', async () => {
    const kc = bootstrapKubeconfig();
    ok(await kubectl('config', 'set-cluster', 'kubernetes', `--certificate-authority=${path.join(dir, 'pki', 'ca.pem')}`, '--embed-certs=true', `--server=${base}`, `--kubeconfig=${kc}`));
    ok(await kubectl('config', 'set-credentials', 'tls-bootstrap-token-user', `--token=${TOKEN_ID}.${TOKEN_SECRET}`, `--kubeconfig=${kc}`));
    ok(await kubectl('config', 'set-context', 'tls-bootstrap-token-user@kubernetes', '--cluster=kubernetes', '--user=tls-bootstrap-token-user', `--kubeconfig=${kc}`));
    expect(ok(await kubectl('config', 'use-context', 'tls-bootstrap-token-user@kubernetes', `--kubeconfig=${kc}`)).trim()).toBe('Switched to context "tls-bootstrap-token-user@kubernetes".');
  });

  it('before the Secret exists the token is unknown: 401 Unauthorized', async () => {
    const r = await api('/api/v1/namespaces/default/pods', { agent: new Agent({ connect: { ca: adminTls(dir).ca } }), token: `${TOKEN_ID}.${TOKEN_SECRET}` });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('8.2: `kubectl create -f bootstrap.secret.yaml` creates the token Secret and the three bindings; `kubectl get cs` is Healthy', async () => {
    const file = path.join(dir, 'bootstrap.secret.yaml');
    fs.writeFileSync(file, BOOTSTRAP_SECRET_YAML);
    expect(ok(await kubectl('create', '-f', file)).trim().split('\n')).toEqual([
      `secret/bootstrap-token-${TOKEN_ID} created`,
      'clusterrolebinding.rbac.authorization.k8s.io/kubelet-bootstrap created',
      'clusterrolebinding.rbac.authorization.k8s.io/node-autoapprove-bootstrap created',
      'clusterrolebinding.rbac.authorization.k8s.io/node-autoapprove-certificate-rotation created',
    ]);
    await waitFor(
      'kubectl get cs all Healthy',
      async () => {
        const r = await kubectl('get', 'cs');
        const rows = r.stdout.trim().split('\n').slice(1);
        return rows.length === 3 && rows.every((l) => /\sHealthy\s+ok/.test(l));
      },
      60_000,
    );
    const cs = await kubectl('get', 'cs');
    expect(cs.stderr).toContain('Warning: v1 ComponentStatus is deprecated in v1.19+');
    expect(cs.stdout.trim().split('\n').map((l) => l.split(/\s+/).slice(0, 3).join(' '))).toEqual(['NAME STATUS MESSAGE', 'scheduler Healthy ok', 'controller-manager Healthy ok', 'etcd-0 Healthy ok']);
  }, 90_000);

  it('the bootstrap identity may create CSRs but not list pods (403)', async () => {
    fs.mkdirSync(path.join(dir, 'boot'));
    const bootEnv = kubectlEnv(path.join(dir, 'boot'), bootstrapKubeconfig());
    const r = await runKubectl(bootEnv, ['get', 'pods', '-A']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Error from server (Forbidden): pods is forbidden: User "system:bootstrap:${TOKEN_ID}" cannot list resource "pods" in API group "" at the cluster scope`);
    const whoami = ok(await runKubectl(bootEnv, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.groups}']));
    expect(JSON.parse(whoami)).toEqual(expect.arrayContaining(['system:bootstrappers', 'system:bootstrappers:default-node-token', 'system:bootstrappers:worker', 'system:authenticated']));
  });

  it('a kubelet with only --bootstrap-kubeconfig gets its CSR approved and issued, writes its certificate and kubeconfig, and its node goes Ready', async () => {
    const kubeletPort = await freePort();
    kubelet = startProcess('kubelet-bootstrap', BIN.kubelet, [
      `--bootstrap-kubeconfig=${bootstrapKubeconfig()}`,
      `--kubeconfig=${kubeletKubeconfig()}`,
      `--cert-dir=${certDir()}`,
      `--hostname-override=${NODE}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${kubeletPort}`,
      '--node-status-update-frequency=1s',
    ]);
    await waitFor(
      `node ${NODE} Ready`,
      async () => {
        if (kubelet?.child.exitCode !== null) throw new Error(`kubelet exited: ${kubelet?.output()}`);
        const r = await kubectl('get', 'node', NODE, '--no-headers');
        return /\sReady\s/.test(r.stdout);
      },
      60_000,
    );
    const csr = ok(await kubectl('get', 'csr'));
    const [header, ...rows] = csr.trim().split('\n');
    expect(header?.split(/\s+/)).toEqual(['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(new RegExp(`^node-csr-[A-Za-z0-9_-]+\\s+\\S+\\s+kubernetes\\.io/kube-apiserver-client-kubelet\\s+system:bootstrap:${TOKEN_ID}\\s+<none>\\s+Approved,Issued$`));
    // The bootstrap CSR's name is the kubelet's: node-csr- and a digest of its key and node name.
    // Where a kubelet keeps them: kubelet-client-current.pem (certificate and key) and the kubeconfig naming it.
    const current = path.join(certDir(), 'kubelet-client-current.pem');
    const { cert } = readCertAndKey(current, current);
    expect(cert.subject).toBe(`O=system:nodes, CN=system:node:${NODE}`);
    expect(fs.readFileSync(kubeletKubeconfig(), 'utf8')).toContain(current);
    fs.mkdirSync(path.join(dir, 'node'));
    const nodeEnv = kubectlEnv(path.join(dir, 'node'), kubeletKubeconfig());
    expect(ok(await runKubectl(nodeEnv, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']))).toBe(`system:node:${NODE}`);
    const node = await api(`/api/v1/nodes/${NODE}`);
    expect(node.status).toBe(200);
  }, 90_000);

  it("the bootstrapped node gets seed 003's dual-stack podCIDRs, and the seed's scheduler places a pod there that runs", async () => {
    await waitFor('podCIDRs', async () => ((await api(`/api/v1/nodes/${NODE}`)).body.spec as { podCIDRs?: string[] } | undefined)?.podCIDRs?.length === 2, 30_000);
    const spec = (await api(`/api/v1/nodes/${NODE}`)).body.spec as { podCIDR: string; podCIDRs: string[] };
    expect(spec.podCIDRs[0]).toMatch(/^172\.2(0[89]|1\d|2[0-3])\.\d+\.0\/24$/);
    expect(spec.podCIDRs[1]).toMatch(/^fc00:2222::/);
    expect(spec.podCIDR).toBe(spec.podCIDRs[0]);
    expect(ok(await kubectl('run', 'web', '--image=nginx')).trim()).toBe('pod/web created');
    await waitFor('pod web Running', async () => (await kubectl('get', 'pod', 'web', '-o', 'jsonpath={.status.phase}/{.spec.nodeName}')).stdout === `Running/${NODE}`, 60_000);
  }, 90_000);

  it('the controllers publish kube-root-ca.crt in every namespace and sign cluster-info for the token', async () => {
    const caPem = fs.readFileSync(path.join(dir, 'pki', 'ca.pem'), 'utf8');
    ok(await kubectl('create', 'namespace', 'team-a'));
    await waitFor('kube-root-ca.crt in team-a', async () => (await api('/api/v1/namespaces/team-a/configmaps/kube-root-ca.crt')).status === 200, 30_000);
    const cm = await api('/api/v1/namespaces/team-a/configmaps/kube-root-ca.crt');
    expect((cm.body.data as Record<string, string>)['ca.crt']).toBe(caPem);
    // kubeadm makes cluster-info; the bootstrapsigner (on through --controllers) adds a JWS per signing token.
    const kubeconfig = `apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}\n    server: ${base}\n  name: ""\ncontexts: null\ncurrent-context: ""\nkind: Config\npreferences: {}\nusers: null\n`;
    expect((await api('/api/v1/namespaces/kube-public/configmaps', { method: 'POST', body: { metadata: { name: 'cluster-info' }, data: { kubeconfig } } })).status).toBe(201);
    await waitFor(
      'cluster-info signed',
      async () => Boolean(((await api('/api/v1/namespaces/kube-public/configmaps/cluster-info')).body.data as Record<string, string> | undefined)?.[`jws-kubeconfig-${TOKEN_ID}`]),
      30_000,
    );
    const data = (await api('/api/v1/namespaces/kube-public/configmaps/cluster-info')).body.data as Record<string, string>;
    const [head, , sig] = (data[`jws-kubeconfig-${TOKEN_ID}`] ?? '').split('.');
    const payload = Buffer.from(data.kubeconfig ?? '').toString('base64url');
    const verified = await compactVerify(`${head}.${payload}.${sig}`, new TextEncoder().encode(TOKEN_SECRET));
    expect(verified.protectedHeader).toMatchObject({ alg: 'HS256', kid: TOKEN_ID });
  }, 60_000);

  it('a kubernetes.io/service-account-token Secret is filled, and its token (and `kubectl create token`\'s) authenticates', async () => {
    ok(await kubectl('create', 'serviceaccount', 'robot'));
    expect(
      (await api('/api/v1/namespaces/default/secrets', { method: 'POST', body: { metadata: { name: 'robot-token', annotations: { 'kubernetes.io/service-account.name': 'robot' } }, type: 'kubernetes.io/service-account-token' } })).status,
    ).toBe(201);
    await waitFor('token Secret filled', async () => Boolean(((await api('/api/v1/namespaces/default/secrets/robot-token')).body.data as Record<string, string> | undefined)?.token), 30_000);
    const data = (await api('/api/v1/namespaces/default/secrets/robot-token')).body.data as Record<string, string>;
    expect(Buffer.from(data.namespace ?? '', 'base64').toString()).toBe('default');
    expect(Buffer.from(data['ca.crt'] ?? '', 'base64').toString()).toBe(fs.readFileSync(path.join(dir, 'pki', 'ca.pem'), 'utf8'));
    const ca = new Agent({ connect: { ca: adminTls(dir).ca } });
    const legacy = Buffer.from(data.token ?? '', 'base64').toString();
    const review = async (token: string) => (await api('/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, agent: ca, token })).body;
    expect(await review(legacy)).toMatchObject({ status: { userInfo: { username: 'system:serviceaccount:default:robot' } } });
    const created = ok(await kubectl('create', 'token', 'robot')).trim();
    expect(await review(created)).toMatchObject({ status: { userInfo: { username: 'system:serviceaccount:default:robot' } } });
    await ca.close();
  }, 60_000);

  it('the kubernetes.io task "issue a certificate for a user", as written: openssl, kubectl certificate approve, a working kubeconfig', async () => {
    const sh = (cmd: string) => execFileSync('sh', ['-c', cmd], { cwd: dir, env, encoding: 'utf8' });
    sh('openssl genrsa -out myuser.key 2048 2>/dev/null && openssl req -new -key myuser.key -out myuser.csr -subj "/CN=myuser"');
    const request = fs.readFileSync(path.join(dir, 'myuser.csr')).toString('base64');
    fs.writeFileSync(
      path.join(dir, 'myuser-csr.yaml'),
      `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: myuser\nspec:\n  request: ${request}\n  signerName: kubernetes.io/kube-apiserver-client\n  expirationSeconds: 86400  # one day\n  usages:\n  - client auth\n`,
    );
    expect(ok(await kubectl('apply', '-f', path.join(dir, 'myuser-csr.yaml'))).trim()).toBe('certificatesigningrequest.certificates.k8s.io/myuser created');
    expect(ok(await kubectl('get', 'csr', 'myuser', '--no-headers'))).toMatch(/^myuser\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+kubernetes-admin\s+24h\s+Pending\n$/);
    expect(ok(await kubectl('certificate', 'approve', 'myuser')).trim()).toBe('certificatesigningrequest.certificates.k8s.io/myuser approved');
    await waitFor('myuser issued', async () => (await kubectl('get', 'csr', 'myuser', '-o', 'jsonpath={.status.certificate}')).stdout !== '', 30_000);
    sh("kubectl get csr myuser -o jsonpath='{.status.certificate}' | base64 -d > myuser.crt");
    ok(await kubectl('create', 'role', 'developer', '--verb=create', '--verb=get', '--verb=list', '--verb=update', '--verb=delete', '--resource=pods'));
    ok(await kubectl('create', 'rolebinding', 'developer-binding-myuser', '--role=developer', '--user=myuser'));
    ok(await kubectl('config', 'set-credentials', 'myuser', `--client-key=${path.join(dir, 'myuser.key')}`, `--client-certificate=${path.join(dir, 'myuser.crt')}`, '--embed-certs=true'));
    ok(await kubectl('config', 'set-context', 'myuser', '--cluster=kubernetes', '--user=myuser'));
    expect(ok(await kubectl('--context=myuser', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'))).toBe('myuser');
    expect(ok(await kubectl('--context=myuser', 'get', 'pods', '-o', 'name'))).toContain('pod/web');
    const denied = await kubectl('--context=myuser', 'get', 'secrets');
    expect(denied.stderr).toContain('Error from server (Forbidden): secrets is forbidden: User "myuser" cannot list resource "secrets" in API group "" in the namespace "default"');
  }, 60_000);

  it('tokencleaner deletes an expired bootstrap token Secret', async () => {
    const expired = new Date(Date.now() - 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const id = crypto.randomBytes(3).toString('hex');
    expect(
      (await api('/api/v1/namespaces/kube-system/secrets', {
        method: 'POST',
        body: { metadata: { name: `bootstrap-token-${id}` }, type: 'bootstrap.kubernetes.io/token', stringData: { 'token-id': id, 'token-secret': '0123456789abcdef', expiration: expired, 'usage-bootstrap-authentication': 'true' } },
      })).status,
    ).toBe(201);
    await waitFor('expired token deleted', async () => (await api(`/api/v1/namespaces/kube-system/secrets/bootstrap-token-${id}`)).status === 404, 30_000);
  }, 45_000);
});
