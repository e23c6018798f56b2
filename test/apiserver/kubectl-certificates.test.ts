// The kubernetes.io task "Issue a Certificate for a Kubernetes User" against one HTTPS apiserver with RBAC and
// static tokens: a key and CSR made with openssl, `kubectl apply -f csr.yaml` (strict validation: OpenAPI),
// `kubectl get csr` with Kubernetes' columns, `kubectl describe csr`, `kubectl certificate approve|deny` by an admin (the dispatched
// kubectl, JSON, and stock kubectl 1.32, protobuf), a user who may update /approval but not approve the signer
// refused by CertificateApproval, a Denied request that cannot be approved, and the v1 refusals
// (legacy-unknown; O=system:masters for kube-apiserver-client).
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiserver, type ApiserverProc } from '../support/apiserver.ts';
import { writeKubeconfig } from '../support/kubeconfig.ts';
import { kubectlEnv, runKubectl, type KubectlResult } from '../support/kubectl.ts';
import { findKubectl132 } from '../protobuf/kubectl-bin.ts';

let dir: string;
let server: ApiserverProc;
let adminEnv: NodeJS.ProcessEnv;
let janeEnv: NodeJS.ProcessEnv;
const kubectl132 = findKubectl132();
const insecure = new Agent({ connect: { rejectUnauthorized: false } });

const admin = (...args: string[]) => runKubectl(adminEnv, args);
/** Stock kubectl 1.32 (no dispatch on /version), whose typed clients send protobuf bodies. */
const run132 = (env: NodeJS.ProcessEnv, args: string[]) =>
  new Promise<KubectlResult>((resolve) => execFile(kubectl132 as string, args, { env, timeout: 30_000 }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr })));
const jane = (...args: string[]) => runKubectl(janeEnv, args);

function ok(r: KubectlResult): string {
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** A key and a CSR made as the task makes them (openssl genrsa + req -new). */
function opensslCsr(name: string, subject: string): string {
  const key = path.join(dir, `${name}.key`);
  const csr = path.join(dir, `${name}.csr`);
  execFileSync('openssl', ['genrsa', '-out', key, '2048'], { stdio: 'ignore' });
  execFileSync('openssl', ['req', '-new', '-key', key, '-out', csr, '-subj', subject], { stdio: 'ignore' });
  return Buffer.from(readFileSync(csr)).toString('base64');
}

function csrManifest(name: string, request: string, signerName = 'kubernetes.io/kube-apiserver-client'): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'apiVersion: certificates.k8s.io/v1',
      'kind: CertificateSigningRequest',
      'metadata:',
      `  name: ${name}`,
      'spec:',
      `  request: ${request}`,
      `  signerName: ${signerName}`,
      '  expirationSeconds: 86400  # one day',
      '  usages:',
      '  - client auth',
      '',
    ].join('\n'),
  );
  return file;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kemu-kubectl-csr-'));
  const tokens = path.join(dir, 'tokens.csv');
  writeFileSync(tokens, 'admin-token,kubernetes-admin,uid-admin,system:masters\njane-token,jane,uid-jane,devs\n');
  server = await startApiserver('apiserver-csr', path.join(dir, 'state.db'), { scheme: 'https', extra: [`--token-auth-file=${tokens}`, '--authorization-mode=RBAC'] });
  for (const who of ['admin', 'jane']) mkdirSync(path.join(dir, who));
  adminEnv = kubectlEnv(path.join(dir, 'admin'), writeKubeconfig(path.join(dir, 'admin.kubeconfig'), server.url, { insecure: true, token: 'admin-token' }));
  janeEnv = kubectlEnv(path.join(dir, 'jane'), writeKubeconfig(path.join(dir, 'jane.kubeconfig'), server.url, { insecure: true, token: 'jane-token' }));
  // jane may create and read CSRs and update /approval, but is granted no `approve` on any signer.
  const rbac = path.join(dir, 'rbac.yaml');
  writeFileSync(
    rbac,
    [
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: ClusterRole',
      'metadata: {name: csr-requester}',
      'rules:',
      '- {apiGroups: [certificates.k8s.io], resources: [certificatesigningrequests], verbs: [create, get, list, watch]}',
      '- {apiGroups: [certificates.k8s.io], resources: [certificatesigningrequests/approval], verbs: [update]}',
      '---',
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: ClusterRoleBinding',
      'metadata: {name: jane-csr-requester}',
      'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: csr-requester}',
      'subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: jane}]',
      '',
    ].join('\n'),
  );
  ok(await admin('apply', '-f', rbac));
}, 90_000);

afterAll(async () => {
  await insecure.close();
  await server?.proc.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('kubectl and CertificateSigningRequests', () => {
  it('kubectl apply -f csr.yaml records the requester; get csr shows it Pending with Kubernetes\' columns', async () => {
    const out = ok(await jane('apply', '-f', csrManifest('myuser', opensslCsr('myuser', '/CN=myuser'))));
    expect(out.trim()).toBe('certificatesigningrequest.certificates.k8s.io/myuser created');
    const get = ok(await jane('get', 'csr'));
    expect(get).toMatch(/^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\nmyuser\s+\d+s\s+kubernetes\.io\/kube-apiserver-client\s+jane\s+24h\s+Pending\n$/);
    const obj = JSON.parse(ok(await admin('get', 'csr', 'myuser', '-o', 'json'))) as { spec: Record<string, unknown>; status: unknown };
    expect(obj.spec).toMatchObject({ username: 'jane', uid: 'uid-jane', groups: ['devs', 'system:authenticated'], usages: ['client auth'], expirationSeconds: 86400 });
    expect(obj.status).toEqual({});
    const describe = ok(await admin('describe', 'csr', 'myuser'));
    expect(describe).toMatch(/Requesting User:\s+jane\nSigner:\s+kubernetes\.io\/kube-apiserver-client\nRequested Duration:\s+24h\nStatus:\s+Pending\nSubject:\n\s+Common Name:\s+myuser\n/);
  });

  it("a user without approve on the signer gets Kubernetes' 403", async () => {
    const r = await jane('certificate', 'approve', 'myuser');
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      'Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "myuser" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"',
    );
    expect(ok(await jane('get', 'csr', 'myuser'))).toMatch(/\s+Pending\n$/);
  });

  it('the admin approves (again: nothing changes); get csr shows Approved', async () => {
    expect(ok(await admin('certificate', 'approve', 'myuser')).trim()).toBe('certificatesigningrequest.certificates.k8s.io/myuser approved');
    const first = JSON.parse(ok(await admin('get', 'csr', 'myuser', '-o', 'json'))) as { metadata: { resourceVersion: string }; status: { conditions: Record<string, string>[] } };
    expect(first.status.conditions).toHaveLength(1);
    expect(first.status.conditions[0]).toMatchObject({ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'This CSR was approved by kubectl certificate approve.' });
    expect(first.status.conditions[0]?.lastTransitionTime).toMatch(/Z$/);
    expect(ok(await admin('certificate', 'approve', 'myuser')).trim()).toBe('certificatesigningrequest.certificates.k8s.io/myuser approved');
    const again = JSON.parse(ok(await admin('get', 'csr', 'myuser', '-o', 'json'))) as { metadata: { resourceVersion: string } };
    expect(again.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(ok(await admin('get', 'csr', 'myuser'))).toMatch(/myuser\s+\d+s\s+kubernetes\.io\/kube-apiserver-client\s+jane\s+24h\s+Approved\n$/);
  });

  it.skipIf(!kubectl132)('stock kubectl 1.32 (protobuf bodies) denies; a Denied request cannot be approved', async () => {
    ok(await jane('create', '-f', csrManifest('other', opensslCsr('other', '/CN=other/O=devs'))));
    const deny = await run132(adminEnv, ['certificate', 'deny', 'other']);
    expect(deny.stdout.trim(), deny.stderr).toBe('certificatesigningrequest.certificates.k8s.io/other denied');
    expect(ok(await admin('get', 'csr', 'other'))).toMatch(/other\s+\d+s\s+kubernetes\.io\/kube-apiserver-client\s+jane\s+24h\s+Denied\n$/);
    const approve = await admin('certificate', 'approve', 'other');
    expect(approve.code).toBe(1);
    expect(approve.stderr.trim()).toBe('error: certificate signing request "other" is already Denied');
    // Past kubectl's own check, the server refuses both conditions at once.
    const csr = JSON.parse(ok(await admin('get', 'csr', 'other', '-o', 'json'))) as { status: { conditions: unknown[] } };
    csr.status.conditions.push({ type: 'Approved', status: 'True', reason: 'Forced' });
    const put = await request(`${server.url}/apis/certificates.k8s.io/v1/certificatesigningrequests/other/approval`, {
      method: 'PUT',
      dispatcher: insecure,
      headers: { authorization: 'Bearer admin-token', 'content-type': 'application/json' },
      body: JSON.stringify(csr),
    });
    const status = (await put.body.json()) as { code: number; message: string };
    expect(status.code).toBe(422);
    expect(status.message).toBe('CertificateSigningRequest.certificates.k8s.io "other" is invalid: status.conditions[1].type: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive');
  });

  it('kubectl explain reads the CSR schema from OpenAPI v3', async () => {
    const out = ok(await jane('explain', 'csr.spec'));
    expect(out).toMatch(/^GROUP:\s+certificates\.k8s\.io\nKIND:\s+CertificateSigningRequest\nVERSION:\s+v1\n/);
    for (const field of ['expirationSeconds\t<integer>', 'extra\t<map[string][]string>', 'request\t<string>', 'signerName\t<string>', 'usages\t<[]string>']) expect(out).toContain(field);
  });

  it("refuses the legacy signer and a system:masters client certificate with Kubernetes' messages", async () => {
    const legacy = await jane('apply', '-f', csrManifest('legacy', opensslCsr('legacy', '/CN=legacy'), 'kubernetes.io/legacy-unknown'));
    expect(legacy.code).toBe(1);
    expect(legacy.stderr).toContain(
      'The CertificateSigningRequest "legacy" is invalid: spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    );
    const masters = await jane('create', '-f', csrManifest('masters', opensslCsr('masters', '/CN=root/O=system:masters')));
    expect(masters.code).toBe(1);
    expect(masters.stderr.trim()).toBe(
      `Error from server (Forbidden): error when creating "${path.join(dir, 'masters.yaml')}": certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`,
    );
  });
});
