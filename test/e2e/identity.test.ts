// Identity and access end to end, on one `kemu up` lab (HTTPS, --authorization-mode=Node,RBAC, each component
// with its own certificate), with the clients a user has: kubectl (admin, a user "jane" whose certificate the
// test signs with the lab CA, a kubelet's and the scheduler's kubeconfigs), curl, @kubernetes/client-node and
// the official Python client with a ServiceAccount token. Then bad input: expired and foreign certificates,
// tampered, expired, wrong-audience and orphaned JWTs (401 Unauthorized), a 1 MiB Authorization header (4xx),
// and 300 requests with random Authorization and Impersonate-* headers (no 5xx, no hang).
import * as k8s from '@kubernetes/client-node';
import { execFile, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { waitFor } from '@kemu/base/testing/processes';
import {
  CA_PROFILE,
  KUBERNETES_PROFILE,
  certificatePem,
  embeddedKubeconfigYaml,
  generatePrivateKey,
  issueCertificate,
  privateKeyPem,
  readSigner,
  templateFromProfile,
  type Signer,
} from '@kemu/pki';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, rec } from '../lab/api.ts';
import { startLab, missing, hasKubectl, run, type Lab, type RunResult } from '../lab/lab.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/e2e/identity.test.ts: ${skip}`);

const PYTHON = '/usr/bin/python3';
const noPython = (() => {
  const r = spawnSync(PYTHON, ['-c', 'import kubernetes'], { encoding: 'utf8' });
  if (r.error) return `${PYTHON} not found`;
  return r.status === 0 ? undefined : `${PYTHON} lacks the kubernetes module (apt-get install python3-kubernetes)`;
})();

const NS = 'team-a';
const OTHER_NS = 'team-b';
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

function ok(r: RunResult): string {
  expect(r.code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** A refused kubectl run: exit 1 and Kubernetes' 403 text on stderr. */
function forbidden(r: RunResult, message: string): void {
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(1);
  expect(r.stderr).toContain(`Error from server (Forbidden): ${message}`);
}

interface Cred {
  cert: string;
  key: string;
}

async function issue(signer: Signer, cn: string, orgs: string[], o: { nowMs?: number; expiry?: string } = {}): Promise<Cred> {
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const profile = o.expiry ? { ...KUBERNETES_PROFILE, expiry: o.expiry } : KUBERNETES_PROFILE;
  const cert = await issueCertificate(templateFromProfile(profile, { subject: { CN: cn, ...(orgs.length ? { O: orgs } : {}) }, publicKey: key, nowMs: o.nowMs ?? Date.now() }), signer);
  return { cert: certificatePem(cert), key: privateKeyPem(key) };
}

/** A kubeconfig for a bearer token (JSON is YAML: kubectl, client-node and the Python client read it). */
function tokenKubeconfig(file: string, server: string, caPem: string, token: string): string {
  const cfg = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'lab', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: 'sa', user: { token } }],
    contexts: [{ name: 'sa@lab', context: { cluster: 'lab', user: 'sa' } }],
    'current-context': 'sa@lab',
  };
  fs.writeFileSync(file, JSON.stringify(cfg));
  return file;
}

/** The client certificate and key a kubeconfig holds (embedded data or file paths). */
function credOf(kubeconfig: string): Cred {
  const text = fs.readFileSync(kubeconfig, 'utf8');
  const pick = (field: string): string => {
    const embedded = new RegExp(`${field}-data:\\s*"?([A-Za-z0-9+/=]+)`).exec(text)?.[1];
    if (embedded) return Buffer.from(embedded, 'base64').toString();
    const file = new RegExp(`${field}:\\s*"?([^"\\s]+)`).exec(text)?.[1];
    if (!file) throw new Error(`${kubeconfig} has no ${field}`);
    return fs.readFileSync(path.resolve(path.dirname(kubeconfig), file), 'utf8');
  };
  return { cert: pick('client-certificate'), key: pick('client-key') };
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** Re-signs a JWT's (changed) claims with the ServiceAccount signing key, keeping its header (alg, kid). */
function resign(token: string, key: crypto.KeyObject, change: (claims: Record<string, unknown>) => void): string {
  const [h = '', p = ''] = token.split('.');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg: string };
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  change(claims);
  const input = `${h}.${b64url(JSON.stringify(claims))}`;
  const hash = `sha${header.alg.slice(2)}`;
  const sig = header.alg.startsWith('ES') ? crypto.sign(hash, Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }) : crypto.sign(hash, Buffer.from(input), key);
  return `${input}.${b64url(sig)}`;
}

interface RawReply {
  /** The status line's code, or 0 when the connection closed without one. */
  status: number;
  text: string;
}

/** One HTTP/1.1 request written byte for byte over TLS (any header bytes, any size); resolves with the reply or rejects on a hang. */
function rawRequest(server: string, ca: Buffer, head: Buffer, cred?: Cred, timeoutMs = 15_000): Promise<RawReply> {
  const u = new URL(server);
  return new Promise((resolve, reject) => {
    let text = '';
    const done = () => {
      clearTimeout(timer);
      sock.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, text });
    };
    const sock = tls.connect({ host: u.hostname, port: Number(u.port), ca, ...(cred ?? {}) }, () => sock.write(head));
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no reply within ${timeoutMs} ms (a hang): ${head.subarray(0, 200).toString('latin1')}`));
    }, timeoutMs);
    sock.setEncoding('latin1');
    sock.on('data', (d: string) => {
      text += d;
      // One reply is enough: its headers and (JSON) body have arrived once the Status object closed.
      if (/\r\n\r\n/.test(text) && (/\r\ncontent-length: 0\r\n/i.test(text) || text.trimEnd().endsWith('}'))) done();
    });
    sock.on('end', done);
    sock.on('close', done);
    sock.on('error', () => done());
  });
}

describe.skipIf(skip)('identity and access on kemu up (Node,RBAC; real clients)', () => {
  let lab: Lab;
  let pki: string;
  let caPem: string;
  let ca: Signer;
  let janeConfig: string;
  let janeCred: Cred;
  let saToken = '';
  let httpsAgent: Agent;
  const k = (...a: string[]) => lab.kubectl(...a);
  const as = (kubeconfig: string, ...a: string[]) => run('kubectl', [`--kubeconfig=${kubeconfig}`, ...a], { HOME: lab.dir });
  const jane = (...a: string[]) => as(janeConfig, ...a);
  /** A request with a bearer token (or none: anonymous), the CA verified, no client certificate. */
  const bearer = async (method: 'GET' | 'POST' | 'PATCH', p: string, token?: string, body?: unknown, contentType = 'application/json') => {
    const r = await request(`${lab.server}${p}`, {
      method,
      dispatcher: httpsAgent,
      headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': contentType }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.body.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep text
    }
    return { status: r.statusCode, body: parsed };
  };
  /** curl with the lab CA and optionally a client certificate; the HTTP code and the body. */
  const curl = async (p: string, o: { cred?: Cred; method?: string; data?: string; contentType?: string } = {}) => {
    const args = ['-sS', '--cacert', path.join(pki, 'ca.pem'), '-o', '-', '-w', '\n%{http_code}', '-H', 'Accept: application/json'];
    if (o.cred) {
      const f = path.join(lab.dir, `curl-${crypto.randomUUID()}`);
      fs.writeFileSync(`${f}.pem`, o.cred.cert);
      fs.writeFileSync(`${f}-key.pem`, o.cred.key);
      args.push('--cert', `${f}.pem`, '--key', `${f}-key.pem`);
    }
    if (o.method) args.push('-X', o.method);
    if (o.data !== undefined) args.push('-H', `Content-Type: ${o.contentType ?? 'application/json'}`, '--data-binary', o.data);
    const r = await run('curl', [...args, `${lab.server}${p}`]);
    expect(r.code, r.stderr).toBe(0);
    const nl = r.stdout.lastIndexOf('\n');
    return { status: Number(r.stdout.slice(nl + 1)), body: JSON.parse(r.stdout.slice(0, nl)) as Record<string, unknown> };
  };

  beforeAll(async () => {
    lab = await startLab({ apiservers: 2, controllerManagers: 1, schedulers: 1, workers: 2 });
    await lab.waitRunning(undefined, 120_000);
    pki = path.join(lab.dir, 'pki');
    caPem = fs.readFileSync(path.join(pki, 'ca.pem'), 'utf8');
    httpsAgent = new Agent({ connect: { ca: caPem } });
    ca = readSigner(path.join(pki, 'ca.pem'), path.join(pki, 'ca-key.pem'));
    const j = (janeCred = await issue(ca, 'jane', []));
    janeConfig = path.join(lab.dir, 'jane.kubeconfig');
    fs.writeFileSync(janeConfig, embeddedKubeconfigYaml({ server: lab.server, caPem, user: 'jane', clientCertPem: j.cert, clientKeyPem: j.key }));
    await waitFor('2 Ready nodes', async () => {
      const r = await k('get', 'nodes', '--no-headers');
      return r.stdout.split('\n').filter((l) => /^worker-[01]\s+Ready\s/.test(l)).length === 2;
    }, 60_000, 300);
    for (const ns of [NS, OTHER_NS]) ok(await k('create', 'namespace', ns));
    ok(await k('create', 'rolebinding', 'jane-view', '--clusterrole=view', '--user=jane', '-n', NS));
  }, 180_000);
  afterAll(async () => {
    await httpsAgent?.close();
    await lab?.down();
  }, 60_000);

  it('kubectl with the admin kubeconfig: auth whoami is kubernetes-admin in system:masters', async () => {
    const out = ok(await k('auth', 'whoami'));
    expect(out).toMatch(/^ATTRIBUTE\s+VALUE\nUsername\s+kubernetes-admin\nGroups\s+\[system:masters system:authenticated\]\n/);
    expect(ok(await k('get', 'namespaces', '-o', 'name'))).toContain(`namespace/${NS}`);
  });

  it('jane (a certificate signed by the lab CA, RoleBinding to view): get/list pods; no create, no secrets, no other namespace', async () => {
    expect(ok(await jane('auth', 'whoami'))).toMatch(/Username\s+jane\nGroups\s+\[system:authenticated\]/);
    ok(await k('run', 'web', '--image=nginx', '-n', NS));
    // The binding reaches every apiserver's RBAC cache through its watch: wait for jane's first allowed read.
    await waitFor('jane lists pods', async () => (await jane('get', 'pods', '-n', NS)).code === 0, 20_000, 200);
    expect(ok(await jane('get', 'pods', '-n', NS))).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nweb\s/);
    expect(ok(await jane('get', 'pod', 'web', '-n', NS, '-o', 'name'))).toBe('pod/web\n');
    forbidden(await jane('run', 'mine', '--image=nginx', '-n', NS), `pods is forbidden: User "jane" cannot create resource "pods" in API group "" in the namespace "${NS}"`);
    forbidden(await jane('get', 'secrets', '-n', NS), `secrets is forbidden: User "jane" cannot list resource "secrets" in API group "" in the namespace "${NS}"`);
    forbidden(await jane('get', 'pods', '-n', OTHER_NS), `pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "${OTHER_NS}"`);
    forbidden(await jane('get', 'pods', '-A'), 'pods is forbidden: User "jane" cannot list resource "pods" in API group "" at the cluster scope');
  }, 60_000);

  it('kubectl auth can-i --list as jane agrees with the aggregated view ClusterRole', async () => {
    type Rule = { apiGroups?: string[]; resources?: string[]; verbs: string[] };
    // view's rules come from the clusterrole-aggregation controller (it aggregates aggregate-to-view roles).
    const viewRules = await waitFor('view aggregated', async () => {
      const cr = await lab.kubectlJson<{ rules?: Rule[] }>('get', 'clusterrole', 'view');
      return cr.rules?.some((r) => r.resources?.includes('pods')) ? cr.rules : undefined;
    }, 60_000, 300);
    const want = new Map<string, Set<string>>();
    for (const r of viewRules) for (const g of r.apiGroups ?? []) for (const res of r.resources ?? []) {
      const [base = '', sub] = res.split('/');
      const name = `${g ? `${base}.${g}` : base}${sub ? `/${sub}` : ''}`;
      const set = want.get(name) ?? new Set<string>();
      for (const v of r.verbs) set.add(v);
      want.set(name, set);
    }
    const out = ok(await jane('auth', 'can-i', '--list', '-n', NS));
    const [header, ...rows] = out.trimEnd().split('\n');
    expect(header).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
    const got = new Map<string, Set<string>>();
    for (const row of rows) {
      // Resources (empty on a non-resource URL row), Non-Resource URLs, Resource Names, Verbs.
      const m = /^(?:([^\s[]\S*)\s+)?\[[^\]]*\]\s+\[[^\]]*\]\s+\[([^\]]*)\]$/.exec(row.trim());
      expect(m, row).not.toBeNull();
      const [, res = '', verbs = ''] = m ?? [];
      if (!res) continue; // a non-resource URL row (discovery, /healthz …)
      // kubectl prints a subresource after the group ("daemonsets/status.apps"): key it as resource.group/sub.
      const [base = '', rest] = res.split('/');
      const dot = rest?.indexOf('.') ?? -1;
      const key = rest === undefined ? base : dot < 0 ? `${base}/${rest}` : `${base}${rest.slice(dot)}/${rest.slice(0, dot)}`;
      const set = got.get(key) ?? new Set<string>();
      for (const v of verbs.split(' ').filter(Boolean)) set.add(v);
      got.set(key, set);
    }
    // Everything view grants is listed with its verbs …
    for (const [res, verbs] of want) expect([...(got.get(res) ?? [])].sort(), res).toEqual(expect.arrayContaining([...verbs]));
    // … and nothing else but the self-reviews every authenticated user may create (system:basic-user).
    const selfReviews = /^self\w+reviews\.(authorization|authentication)\.k8s\.io$/;
    for (const [res, verbs] of got) {
      if (selfReviews.test(res)) expect([...verbs]).toEqual(['create']);
      else expect([...verbs].filter((v) => !want.get(res)?.has(v)), res).toEqual([]);
    }
    expect(got.has('secrets')).toBe(false);
    expect([...(got.get('pods') ?? [])].sort()).toEqual(['get', 'list', 'watch']);
    // can-i for single requests says the same.
    const yes = await jane('auth', 'can-i', 'list', 'deployments.apps', '-n', NS);
    expect([yes.code, yes.stdout]).toEqual([0, 'yes\n']);
    const no = await jane('auth', 'can-i', 'get', 'secrets', '-n', NS);
    expect([no.code, no.stdout]).toEqual([1, 'no\n']);
  }, 90_000);

  it('kubectl create role/rolebinding/clusterrole/clusterrolebinding; jane cannot grant more than she holds', async () => {
    expect(ok(await k('create', 'role', 'binder', '--verb=create,get,list', '--resource=rolebindings', '-n', NS))).toBe('role.rbac.authorization.k8s.io/binder created\n');
    expect(ok(await k('create', 'rolebinding', 'jane-binder', '--role=binder', '--user=jane', '-n', NS))).toBe('rolebinding.rbac.authorization.k8s.io/jane-binder created\n');
    expect(ok(await k('create', 'clusterrole', 'node-reader', '--verb=get,list,watch', '--resource=nodes'))).toBe('clusterrole.rbac.authorization.k8s.io/node-reader created\n');
    expect(ok(await k('create', 'clusterrolebinding', 'ops-nodes', '--clusterrole=node-reader', '--group=ops'))).toBe('clusterrolebinding.rbac.authorization.k8s.io/ops-nodes created\n');
    await waitFor('ops may list nodes', async () => (await k('auth', 'can-i', 'list', 'nodes', '--as=sam', '--as-group=ops')).stdout === 'yes\n', 20_000, 200);
    await waitFor('jane may create rolebindings', async () => (await jane('auth', 'can-i', 'create', 'rolebindings', '-n', NS)).stdout === 'yes\n', 20_000, 200);

    // She holds view, so she may hand view on; edit she does not hold.
    expect(ok(await jane('create', 'rolebinding', 'bob-view', '--clusterrole=view', '--user=bob', '-n', NS))).toBe('rolebinding.rbac.authorization.k8s.io/bob-view created\n');
    const grab = await jane('create', 'rolebinding', 'grab', '--clusterrole=edit', '--user=jane', '-n', NS);
    expect(grab.code, grab.stderr).toBe(1);
    expect(grab.stderr).toContain('rolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:');
    expect(grab.stderr).toMatch(/\{APIGroups:\[""\], Resources:\["pods"\], Verbs:\["create" "delete" "deletecollection" "patch" "update"\]\}/);
    const admin = await jane('create', 'rolebinding', 'grab', '--clusterrole=cluster-admin', '--user=jane', '-n', NS);
    expect(admin.code).toBe(1);
    expect(admin.stderr).toContain('is attempting to grant RBAC permissions not currently held:');
    const g = await k('get', 'rolebinding', 'grab', '-n', NS);
    expect(g.code).toBe(1);
    expect(g.stderr).toContain('Error from server (NotFound): rolebindings.rbac.authorization.k8s.io "grab" not found');
  }, 60_000);

  it('can-i as the default ServiceAccount is "no"; anonymous Secrets → 403 system:anonymous; /readyz and /version anonymous → 200', async () => {
    const r = await k('auth', 'can-i', '--as=system:serviceaccount:default:default', 'get', 'pods');
    expect([r.code, r.stdout]).toEqual([1, 'no\n']);
    const secrets = await curl('/api/v1/namespaces/default/secrets');
    expect(secrets.status).toBe(403);
    expect(secrets.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: 'secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "default"',
      details: { kind: 'secrets' },
    });
    const readyz = await request(`${lab.server}/readyz`, { dispatcher: httpsAgent });
    expect([readyz.statusCode, await readyz.body.text()]).toEqual([200, 'ok']);
    const version = await bearer('GET', '/version');
    expect(version.status).toBe(200);
    expect(rec(version.body).gitVersion).toMatch(/^v1\.\d+\.\d+/);
  });

  it('a kubelet (system:node:worker-0) reads its own Node, not another node\'s pods or Lease', async () => {
    const kubelet = path.join(lab.dir, 'kubelet-worker-0.kubeconfig');
    const kl = (...a: string[]) => as(kubelet, ...a);
    expect(ok(await kl('auth', 'whoami'))).toMatch(/Username\s+system:node:worker-0\nGroups\s+\[system:nodes system:authenticated\]/);
    expect(ok(await kl('get', 'node', 'worker-0', '-o', 'name'))).toBe('node/worker-0\n');
    forbidden(await kl('get', 'nodes'), 'nodes is forbidden: User "system:node:worker-0" cannot list resource "nodes" in API group "" at the cluster scope');
    // A pod bound to worker-1 (nodeName set, past the scheduler).
    const pod = path.join(lab.dir, 'on-worker-1.json');
    fs.writeFileSync(pod, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'on-worker-1', namespace: NS }, spec: { nodeName: 'worker-1', containers: [{ name: 'c', image: 'nginx' }] } }));
    ok(await k('create', '-f', pod));
    forbidden(await kl('get', 'pod', 'on-worker-1', '-n', NS), `pods "on-worker-1" is forbidden: User "system:node:worker-0" cannot get resource "pods" in API group "" in the namespace "${NS}"`);
    // The Node authorizer lets nodes delete pods (mirror pods); NodeRestriction admission limits it to its own.
    forbidden(await kl('delete', 'pod', 'on-worker-1', '-n', NS), 'pods "on-worker-1" is forbidden: node "worker-0" can only delete pods with spec.nodeName set to itself');
    forbidden(await kl('label', 'pod', 'on-worker-1', 'x=y', '-n', NS), `pods "on-worker-1" is forbidden: User "system:node:worker-0" cannot`);
    forbidden(await kl('get', 'lease', 'worker-1', '-n', 'kube-node-lease'), 'leases.coordination.k8s.io "worker-1" is forbidden: User "system:node:worker-0" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease"');
    const patch = await curl('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/worker-1', { cred: credOf(kubelet), method: 'PATCH', data: '{"spec":{"holderIdentity":"worker-0"}}', contentType: 'application/merge-patch+json' });
    expect(patch.status).toBe(403);
    expect(patch.body.message).toBe('leases.coordination.k8s.io "worker-1" is forbidden: User "system:node:worker-0" cannot patch resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease": can only access node lease with the same name as the requesting node');
    expect(ok(await kl('get', 'lease', 'worker-0', '-n', 'kube-node-lease', '-o', 'jsonpath={.spec.holderIdentity}'))).toBe('worker-0');
    expect(ok(await k('get', 'pod', 'on-worker-1', '-n', NS, '-o', 'name'))).toBe('pod/on-worker-1\n');
    // The kubelets still run pods under NodeRestriction: web (scheduled) reaches Running.
    await waitFor('pod web Running', async () => ok(await k('get', 'pod', 'web', '-n', NS, '-o', 'jsonpath={.status.phase}')) === 'Running', 60_000, 300);
  }, 90_000);

  it('the Lease hijack: patching kube-controller-manager\'s Lease as jane, anonymous, a kubelet or the scheduler → 403; cs stays Healthy', async () => {
    const leasePath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager';
    const hijack = '{"spec":{"holderIdentity":"attacker","leaseDurationSeconds":3600}}';
    const holder = await waitFor('a controller-manager holds its Lease', async () => {
      const r = await k('get', 'lease', 'kube-controller-manager', '-n', 'kube-system', '-o', 'jsonpath={.spec.holderIdentity}');
      return r.code === 0 && r.stdout.startsWith('controller-manager-') ? r.stdout : undefined;
    }, 30_000, 300);
    const msg = (user: string) => `leases.coordination.k8s.io "kube-controller-manager" is forbidden: User "${user}" cannot patch resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"`;
    const who: [string, Cred | undefined][] = [
      ['jane', janeCred],
      ['system:anonymous', undefined],
      ['system:node:worker-0', credOf(path.join(lab.dir, 'kubelet-worker-0.kubeconfig'))],
      ['system:kube-scheduler', credOf(path.join(lab.dir, 'scheduler.kubeconfig'))],
    ];
    for (const [user, cred] of who) {
      const r = await curl(leasePath, { ...(cred ? { cred } : {}), method: 'PATCH', data: hijack, contentType: 'application/merge-patch+json' });
      expect([user, r.status]).toEqual([user, 403]);
      // The Node authorizer adds its reason for a kubelet (": can only access …").
      expect(String(r.body.message).startsWith(msg(user)), String(r.body.message)).toBe(true);
      if (!user.startsWith('system:node:')) expect(r.body.message).toBe(msg(user));
    }
    // kubectl patch reads the Lease first, and that is refused already.
    const kp = await jane('patch', 'lease', 'kube-controller-manager', '-n', 'kube-system', '--type=merge', '-p', hijack);
    forbidden(kp, 'leases.coordination.k8s.io "kube-controller-manager" is forbidden: User "jane" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"');
    // Only the component's own identity may renew it: system:kube-controller-manager's bootstrap role has get and
    // update on that Lease by name (leader election updates; not even it may patch).
    const can = async (verb: string, user: string) => (await k('auth', 'can-i', verb, 'leases/kube-controller-manager', '-n', 'kube-system', `--as=${user}`)).stdout;
    expect(await can('update', 'system:kube-controller-manager')).toBe('yes\n');
    expect(await can('patch', 'system:kube-controller-manager')).toBe('no\n');
    expect(await can('update', 'jane')).toBe('no\n');
    expect(await can('update', 'system:node:worker-0')).toBe('no\n');
    // (Kubernetes' system::leader-locking-kube-scheduler Role, since coordinated leader election, lets the
    // scheduler update every Lease in kube-system; kemu has the same Role, so only PATCH is refused to it.)
    const now = ok(await k('get', 'lease', 'kube-controller-manager', '-n', 'kube-system', '-o', 'json'));
    const spec = rec(rec(JSON.parse(now)).spec);
    expect(spec.holderIdentity).not.toBe('attacker');
    expect(String(spec.holderIdentity).split('_')[0]).toBe(holder.split('_')[0]);
    expect(spec.leaseDurationSeconds).not.toBe(3600);
    await waitFor('cs Healthy', async () => {
      const g = await k('get', 'cs');
      return g.code === 0 && /\ncontroller-manager\s+Healthy\s+ok/.test(g.stdout) && /\nscheduler\s+Healthy\s+ok/.test(g.stdout);
    }, 30_000, 500);
  }, 60_000);

  it('kubectl create token default; client-node and the Python client get 403, then list pods once default may view', async (ctx) => {
    await waitFor('the default ServiceAccount', async () => (await k('get', 'serviceaccount', 'default', '-n', NS)).code === 0, 30_000, 300);
    const t = ok(await k('create', 'token', 'default', '-n', NS)).trim();
    expect(t).toMatch(/^eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+$/);
    const claims = JSON.parse(Buffer.from(t.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(claims.sub).toBe(`system:serviceaccount:${NS}:default`);
    saToken = t;
    const config = tokenKubeconfig(path.join(lab.dir, 'sa.kubeconfig'), lab.server, caPem, t);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(config);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const nodeList = async () => {
      try {
        const l = await core.listNamespacedPod({ namespace: NS });
        return { code: 200, names: l.items.map((p) => p.metadata?.name ?? '').sort(), body: '' };
      } catch (e) {
        const err = e as { code?: number; body?: unknown };
        return { code: err.code ?? 0, names: [] as string[], body: String(err.body) };
      }
    };
    const py = [
      'import json, sys',
      'from kubernetes import client, config',
      'from kubernetes.client.rest import ApiException',
      'config.load_kube_config(config_file=sys.argv[1])',
      'try:',
      '    pods = client.CoreV1Api().list_namespaced_pod(sys.argv[2])',
      '    print(json.dumps({"code": 200, "names": sorted(p.metadata.name for p in pods.items)}))',
      'except ApiException as e:',
      '    print(json.dumps({"code": e.status, "message": json.loads(e.body).get("message")}))',
    ].join('\n');
    const pyList = () => new Promise<{ code: number; names?: string[]; message?: string }>((resolve, reject) =>
      execFile(PYTHON, ['-c', py, config, NS], { timeout: 60_000, env: { ...process.env, HOME: lab.dir } }, (err, stdout, stderr) =>
        err ? reject(new Error(`python: ${stderr || err.message}`)) : resolve(JSON.parse(stdout) as { code: number })));

    const denied = `pods is forbidden: User "system:serviceaccount:${NS}:default" cannot list resource "pods" in API group "" in the namespace "${NS}"`;
    const before = await nodeList();
    expect(before.code).toBe(403);
    expect(JSON.parse(before.body)).toMatchObject({ reason: 'Forbidden', message: denied });
    if (!noPython) expect(await pyList()).toEqual({ code: 403, message: denied });

    ok(await k('create', 'rolebinding', 'default-view', '--clusterrole=view', `--serviceaccount=${NS}:default`, '-n', NS));
    const after = await waitFor('client-node lists pods with the token', async () => {
      const l = await nodeList();
      return l.code === 200 ? l : undefined;
    }, 20_000, 200);
    const names = ok(await k('get', 'pods', '-n', NS, '-o', 'jsonpath={.items[*].metadata.name}')).split(' ').sort();
    expect(names).toContain('web');
    expect(after.names).toEqual(names);
    if (noPython) return ctx.skip(`Python client part skipped: ${noPython}`);
    expect(await pyList()).toEqual({ code: 200, names });
  }, 90_000);

  it('TokenReview of that token as admin: authenticated as system:serviceaccount:<ns>:default', async () => {
    expect(saToken).not.toBe('');
    const r = await call(lab.server, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: saToken } });
    expect(r.status).toBe(201);
    const status = rec(rec(r.body).status);
    expect(status.authenticated).toBe(true);
    const user = rec(status.user);
    expect(user.username).toBe(`system:serviceaccount:${NS}:default`);
    expect(user.groups).toEqual(['system:serviceaccounts', `system:serviceaccounts:${NS}`, 'system:authenticated']);
    expect(status.audiences).toEqual(['https://kubernetes.default.svc.cluster.local']);
  });

  it('impersonation: admin --as=jane reads as jane; jane cannot impersonate', async () => {
    expect(ok(await k('--as=jane', 'get', 'pods', '-n', NS, '-o', 'name'))).toContain('pod/web\n');
    expect(ok(await k('--as=jane', 'auth', 'whoami'))).toMatch(/Username\s+jane\nGroups\s+\[system:authenticated\]/);
    forbidden(await k('--as=jane', 'get', 'secrets', '-n', NS), `secrets is forbidden: User "jane" cannot list resource "secrets" in API group "" in the namespace "${NS}"`);
    forbidden(await jane('--as=kubernetes-admin', 'get', 'pods', '-n', NS), 'users "kubernetes-admin" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope');
    // The user is checked before the groups, as Kubernetes does: impersonating even herself needs the verb.
    forbidden(await jane('--as=jane', '--as-group=system:masters', 'get', 'secrets', '-n', NS), 'users "jane" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  describe('bad input', () => {
    const pods = '/api/v1/namespaces/default/pods';

    it('an expired client certificate and one from another CA (curl sends them) → 401 Unauthorized', async () => {
      const expired = await issue(ca, 'jane', [], { nowMs: Date.now() - 48 * 3600_000, expiry: '1h' });
      const r1 = await curl(pods, { cred: expired });
      expect([r1.status, r1.body]).toEqual([401, UNAUTHORIZED]);
      const otherKey = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
      const other = { key: otherKey, cert: await issueCertificate(templateFromProfile(CA_PROFILE, { subject: { CN: 'kubernetes' }, publicKey: otherKey, isCA: true, nowMs: Date.now() }), { selfKey: otherKey }) };
      const mallory = await issue(other, 'kubernetes-admin', ['system:masters']);
      const r2 = await curl(pods, { cred: mallory });
      expect([r2.status, r2.body]).toEqual([401, UNAUTHORIZED]);
      // The same certificate signed by the lab CA is admitted: the refusal is about the issuer.
      expect((await curl(pods, { cred: await issue(ca, 'kubernetes-admin', ['system:masters']) })).status).toBe(200);
    });

    it('tampered, expired, wrong-audience and deleted-ServiceAccount JWTs → 401 Unauthorized', async () => {
      expect(saToken).not.toBe('');
      const self = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
      const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
      const ssr = (token: string) => bearer('POST', self, token, review);
      expect((await ssr(saToken)).status).toBe(201);

      const [h, p, s = ''] = saToken.split('.');
      const mid = Math.floor(s.length / 2);
      const tampered = `${h}.${p}.${s.slice(0, mid)}${s[mid] === 'A' ? 'B' : 'A'}${s.slice(mid + 1)}`;
      expect(await ssr(tampered)).toEqual({ status: 401, body: UNAUTHORIZED });
      const other = JSON.parse(Buffer.from(p ?? '', 'base64url').toString()) as Record<string, unknown>;
      const forged = `${h}.${b64url(JSON.stringify({ ...other, sub: 'system:serviceaccount:kube-system:default' }))}.${s}`;
      expect(await ssr(forged)).toEqual({ status: 401, body: UNAUTHORIZED });

      const saKey = crypto.createPrivateKey(fs.readFileSync(path.join(pki, 'sa.key')));
      // Control: the same claims re-signed with the signing key pass, so the next refusal is the expiry's.
      expect((await ssr(resign(saToken, saKey, () => undefined))).status).toBe(201);
      const now = Math.floor(Date.now() / 1000);
      const expired = resign(saToken, saKey, (c) => Object.assign(c, { iat: now - 7200, nbf: now - 7200, exp: now - 3600 }));
      expect(await ssr(expired)).toEqual({ status: 401, body: UNAUTHORIZED });
      const wrongIssuer = resign(saToken, saKey, (c) => Object.assign(c, { iss: 'https://evil.example.com' }));
      expect(await ssr(wrongIssuer)).toEqual({ status: 401, body: UNAUTHORIZED });

      const otherAudience = ok(await k('create', 'token', 'default', '-n', NS, '--audience=vault')).trim();
      expect(await ssr(otherAudience)).toEqual({ status: 401, body: UNAUTHORIZED });

      ok(await k('create', 'serviceaccount', 'temp', '-n', NS));
      const orphan = ok(await k('create', 'token', 'temp', '-n', NS)).trim();
      expect((await ssr(orphan)).status).toBe(201);
      ok(await k('delete', 'serviceaccount', 'temp', '-n', NS));
      // Within Kubernetes' token success cache (10 s), as there.
      await waitFor('the deleted ServiceAccount\'s token refused', async () => (await ssr(orphan)).status === 401, 20_000, 200);
      expect(await ssr(orphan)).toEqual({ status: 401, body: UNAUTHORIZED });
    }, 60_000);

    it('a 1 MiB Authorization header → 4xx', async () => {
      const ca = Buffer.from(caPem);
      // Through the balancer, as a user sends it, and straight to an apiserver.
      for (const server of [lab.server, lab.url('apiserver-0')]) {
        const head = Buffer.from(`GET ${pods} HTTP/1.1\r\nHost: ${new URL(server).host}\r\nAuthorization: Bearer ${'a'.repeat(1 << 20)}\r\nConnection: close\r\n\r\n`);
        const r = await rawRequest(server, ca, head);
        expect(r.text).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
      }
      // The apiserver is still serving.
      expect((await bearer('GET', '/readyz')).status).toBe(200);
    }, 30_000);

    it('300 requests with random Authorization and Impersonate-* headers: no 5xx, no hang', async () => {
      const caBuf = Buffer.from(caPem);
      const host = new URL(lab.server).host;
      const admin = { cert: fs.readFileSync(path.join(pki, 'admin.pem'), 'utf8'), key: fs.readFileSync(path.join(pki, 'admin-key.pem'), 'utf8') };
      const rnd = (n: number) => crypto.randomInt(n);
      /** Random header-value bytes: printable, high bytes, and now and then a control byte. */
      const junk = (max: number) => {
        const len = 1 + rnd(max);
        const b = Buffer.alloc(len);
        for (let i = 0; i < len; i++) {
          const r = rnd(100);
          b[i] = r < 70 ? 0x20 + rnd(0x5f) : r < 95 ? 0x80 + rnd(0x80) : rnd(0x20);
        }
        return b;
      };
      const shapes: ((i: number) => Buffer[])[] = [
        () => [Buffer.from('Authorization: '), junk(300)],
        () => [Buffer.from('Authorization: Bearer '), junk(300)],
        () => [Buffer.from('Authorization: Basic '), junk(100)],
        () => [Buffer.from(`Authorization: Bearer ${b64url(crypto.randomBytes(20))}.${b64url(crypto.randomBytes(60))}.${b64url(crypto.randomBytes(64))}`)],
        () => [Buffer.from('Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.'), junk(80), Buffer.from('.x')],
        () => [Buffer.from('Authorization: Bearer '), Buffer.from(`${crypto.randomBytes(3).toString('hex')}.${crypto.randomBytes(8).toString('hex')}`)],
        () => [Buffer.from('Impersonate-User: '), junk(60)],
        () => [Buffer.from('Impersonate-Group: '), junk(60)],
        () => [Buffer.from('Impersonate-User: jane\r\nImpersonate-Group: '), junk(60), Buffer.from('\r\nImpersonate-Uid: '), junk(40)],
        () => [Buffer.from(`Impersonate-User: jane\r\nImpersonate-Extra-${crypto.randomBytes(4).toString('hex')}%${rnd(10)}${rnd(10)}: `), junk(60)],
        () => [Buffer.from('Impersonate-Extra-'), junk(20), Buffer.from(': '), junk(20)],
        () => [Buffer.from('Impersonate-Uid: '), junk(40)],
      ];
      const paths = [pods, '/api/v1/namespaces/default/secrets', '/apis/authentication.k8s.io/v1/selfsubjectreviews', '/version', '/api'];
      const statuses = new Map<number, number>();
      const failures: string[] = [];
      let next = 0;
      const worker = async () => {
        while (next < 300) {
          const i = next++;
          const shape = shapes[i % shapes.length] ?? shapes[0];
          const headerLines = shape ? shape(i) : [];
          const p = paths[rnd(paths.length)] ?? '/version';
          const method = p.endsWith('reviews') ? 'POST' : 'GET';
          const body = method === 'POST' ? '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' : '';
          const head = Buffer.concat([
            Buffer.from(`${method} ${p} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\n`),
            ...headerLines,
            Buffer.from(`\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`),
          ]);
          // Half the requests come from the admin (who may impersonate anyone), half anonymously.
          const r = await rawRequest(lab.server, caBuf, head, i % 2 ? admin : undefined);
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.status >= 500 || r.status === 0) failures.push(`${r.status} for ${head.subarray(0, 300).toString('latin1')}\n${r.text.slice(0, 300)}`);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      expect(failures, `statuses ${JSON.stringify([...statuses])}`).toEqual([]);
      expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(300);
      expect((await bearer('GET', '/readyz')).status).toBe(200);
    }, 180_000);
  });
});
