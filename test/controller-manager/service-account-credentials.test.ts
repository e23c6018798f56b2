// --use-service-account-credentials against a kube-apiserver with the lab's PKI, ServiceAccount tokens and
// --authorization-mode=Node,RBAC: with its own certificate (system:kube-controller-manager) the manager may
// only read, so the ReplicaSet controller's pod creates are forbidden; with the flag it creates
// kube-system/replicaset-controller, requests a token for it and creates the pods as that ServiceAccount
// (system:controller:replicaset-controller), which the audit log shows.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { ensureClusterPki } from '@kemu/pki';
import { startPkiApiserver, type ApiserverProc } from '../support/apiserver.ts';
import { SHORT_LEASE } from './cluster.ts';

const SA_USER = 'system:serviceaccount:kube-system:replicaset-controller';

let dir: string;
let A: ApiserverProc | undefined;
let auditLog: string;
const managers: Proc[] = [];

interface AuditEvent {
  stage: string;
  verb: string;
  user: { username: string };
  userAgent?: string;
  objectRef?: { resource?: string; namespace?: string; subresource?: string };
  responseStatus?: { code?: number; message?: string };
}

function audit(): AuditEvent[] {
  if (!existsSync(auditLog)) return [];
  return readFileSync(auditLog, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AuditEvent)
    .filter((e) => e.stage === 'ResponseComplete');
}

function kubectl(...args: string[]): Promise<string> {
  const home = path.join(dir, 'home');
  mkdirSync(home, { recursive: true });
  return new Promise<string>((resolve, reject) =>
    execFile('kubectl', [`--kubeconfig=${path.join(dir, 'admin.kubeconfig')}`, ...args], { env: { ...process.env, HOME: home }, timeout: 60_000 }, (e, so, se) =>
      e ? reject(new Error(`${e.message}\n${se}`)) : resolve(so),
    ),
  );
}

function replicaSet(name: string, kind = 'ReplicaSet'): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind,
    metadata: { name, namespace: 'default' },
    spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  });
}

async function apply(manifest: string): Promise<void> {
  const file = path.join(dir, `m-${Date.now()}.json`);
  writeFileSync(file, manifest);
  await kubectl('apply', '-f', file);
}

function startManager(name: string, extra: string[], kubeconfig = 'controller-manager.kubeconfig'): Proc {
  const p = startProcess(name, BIN.controllerManager, [`--kubeconfig=${path.join(dir, kubeconfig)}`, '--secure-port=0', `--hostname-override=${name}`, ...extra]);
  managers.push(p);
  return p;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kemu-sacreds-'));
  const port = await freePort();
  await ensureClusterPki({ dataDir: dir, server: `https://127.0.0.1:${port}` });
  const pki = path.join(dir, 'pki');
  const policy = path.join(dir, 'audit-policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["/readyz*", "/healthz*", "/livez*"]\n- level: None\n  resources: [{group: coordination.k8s.io, resources: [leases]}]\n- level: Metadata\n');
  auditLog = path.join(dir, 'audit.log');
  A = await startPkiApiserver('apiserver-sacreds', path.join(dir, 'state.db'), pki, port, [`--audit-policy-file=${policy}`, `--audit-log-path=${auditLog}`]);
}, 60_000);

afterAll(async () => {
  for (const m of managers) await m.kill('SIGKILL');
  await A?.proc.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('kube-controller-manager --use-service-account-credentials under RBAC', () => {
  it("without it the controllers write with the manager's certificate and are forbidden", async () => {
    const m = startManager('kcm-own-cert', ['--leader-elect=false', '--controllers=replicaset-controller']);
    await apply(replicaSet('own-cert'));
    const denied = await waitFor(
      'a forbidden pod create',
      () => audit().find((e) => e.verb === 'create' && e.objectRef?.resource === 'pods' && e.objectRef.namespace === 'default' && e.responseStatus?.code === 403),
      30_000,
    );
    expect(denied.user.username).toBe('system:kube-controller-manager');
    expect(await kubectl('get', 'pods', '-l', 'app=own-cert', '-o', 'name')).toBe('');
    await m.kill('SIGTERM');
    await kubectl('delete', 'replicaset', 'own-cert');
  }, 60_000);

  it('with it the ReplicaSet controller creates its pods as kube-system/replicaset-controller', async () => {
    const m = startManager('kcm-sa', ['--use-service-account-credentials', '--allocate-node-cidrs=true', '--cluster-cidr=10.200.0.0/16', '--node-monitor-period=500ms', '--node-startup-grace-period=2s', '--node-monitor-grace-period=2s', ...SHORT_LEASE]);
    await apply(replicaSet('web'));
    await waitFor(
      'two pods and status.replicas 2',
      async () => {
        if (m.child.exitCode !== null) throw new Error(`kube-controller-manager exited: ${m.output()}`);
        const pods = (await kubectl('get', 'pods', '-l', 'app=web', '-o', 'name')).trim().split('\n').filter(Boolean);
        const replicas = (await kubectl('get', 'replicaset', 'web', '-o', 'jsonpath={.status.replicas}')).trim();
        return pods.length === 2 && replicas === '2';
      },
      40_000,
    );
    // The manager made the ServiceAccount and asked for its token with its own identity.
    expect(await kubectl('get', 'sa', '-n', 'kube-system', 'replicaset-controller', '-o', 'name')).toBe('serviceaccount/replicaset-controller\n');
    const events = audit();
    const saCreate = events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'serviceaccounts' && !e.objectRef.subresource && e.responseStatus?.code === 201);
    expect(saCreate?.user.username).toBe('system:kube-controller-manager');
    const tokenRequest = events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'serviceaccounts' && e.objectRef.subresource === 'token');
    expect(tokenRequest?.user.username).toBe('system:kube-controller-manager');
    expect(tokenRequest?.responseStatus?.code).toBe(201);
    // The pods were created by the controller's ServiceAccount, its user agent suffixed with that name.
    const creates = events.filter((e) => e.verb === 'create' && e.objectRef?.resource === 'pods' && e.responseStatus?.code === 201);
    expect(creates.length).toBeGreaterThanOrEqual(2);
    for (const c of creates) {
      expect(c.user.username).toBe(SA_USER);
      expect(c.userAgent).toMatch(new RegExp(`^kube-controller-manager/.*/${SA_USER}$`));
    }
    // Its Events too are written with its own client.
    await waitFor('a SuccessfulCreate Event by the ServiceAccount', () =>
      audit().find((e) => e.verb === 'create' && e.objectRef?.resource === 'events' && e.user.username === SA_USER && e.responseStatus?.code === 201),
    );
    // managedFields take the user agent's first segment, as in Kubernetes.
    const managers = (await kubectl('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.managedFields[*].manager}')).trim().split(' ');
    expect(new Set(managers)).toEqual(new Set(['kube-controller-manager']));
    // Every controller's ServiceAccount exists (node-controller serves node-ipam and node-lifecycle).
    const sas = await kubectl('get', 'sa', '-n', 'kube-system', '-o', 'name');
    for (const sa of ['service-account-controller', 'namespace-controller', 'generic-garbage-collector', 'deployment-controller', 'node-controller', 'endpoint-controller', 'endpointslice-controller', 'pod-garbage-collector', 'clusterrole-aggregation-controller']) {
      expect(sas).toContain(`serviceaccount/${sa}\n`);
    }
  }, 90_000);

  it('the deployment controller and the garbage collector work under their own roles too', async () => {
    await apply(replicaSet('api', 'Deployment'));
    await waitFor(
      'revision 1, a ReplicaSet and two pods',
      async () => {
        const revision = (await kubectl('get', 'deployment', 'api', '-o', `jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}`)).trim();
        const pods = (await kubectl('get', 'pods', '-l', 'app=api', '-o', 'name')).trim().split('\n').filter(Boolean);
        return revision === '1' && pods.length === 2;
      },
      40_000,
    );
    await kubectl('delete', 'deployment', 'api', '--wait=false');
    await waitFor('the ReplicaSet and pods collected', async () => (await kubectl('get', 'replicasets,pods', '-l', 'app=api', '-o', 'name')).trim() === '', 40_000);
  }, 90_000);

  it('namespace, endpoints, endpointslice, node-ipam and node-lifecycle controllers work under their own roles', async () => {
    await kubectl('create', 'namespace', 'doomed');
    await kubectl('create', 'configmap', 'c', '-n', 'doomed');
    await kubectl('delete', 'namespace', 'doomed', '--wait=false');
    await apply(JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }));
    await apply(JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } }));
    await waitFor(
      'Endpoints, an EndpointSlice, a podCIDR, an unreachable taint and the namespace gone',
      async () => {
        const ep = await kubectl('get', 'endpoints', 'web', '--ignore-not-found', '-o', 'name');
        const slices = await kubectl('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'name');
        const cidr = (await kubectl('get', 'node', 'node-a', '-o', 'jsonpath={.spec.podCIDR}')).trim();
        const taints = await kubectl('get', 'node', 'node-a', '-o', 'jsonpath={.spec.taints[*].key}');
        const ns = await kubectl('get', 'namespace', 'doomed', '--ignore-not-found', '-o', 'name');
        return ep.trim() !== '' && slices.trim() !== '' && cidr !== '' && taints.includes('node.kubernetes.io/unreachable') && ns.trim() === '';
      },
      40_000,
    );
    // A refusal by RBAC, that is: the root CA publisher re-creating kube-root-ca.crt in the namespace being
    // deleted is refused by namespace lifecycle admission (403, "because it is being terminated"), as in Kubernetes.
    const forbidden = audit().filter(
      (e) => e.responseStatus?.code === 403 && e.user.username.startsWith('system:serviceaccount:') && !e.responseStatus.message?.includes('because it is being terminated'),
    );
    expect(forbidden.map((e) => `${e.user.username} ${e.verb} ${e.objectRef?.resource ?? ''}/${e.objectRef?.subresource ?? ''}`)).toEqual([]);
  }, 90_000);

  it('exits 1 when it may not provision a controller ServiceAccount, as ClientOrDie does', async () => {
    // kube-scheduler's identity may not read or create ServiceAccounts.
    const m = startManager('kcm-wrong-identity', ['--use-service-account-credentials', '--leader-elect=false', '--controllers=replicaset-controller'], 'scheduler.kubeconfig');
    expect(await m.exited).toBe(1);
    expect(m.output()).toContain('Error in getting client');
    expect(m.output()).toContain('serviceaccounts "replicaset-controller" is forbidden: User "system:kube-scheduler" cannot get resource "serviceaccounts"');
  }, 60_000);
});
