// metrics-server as the aggregator and kubectl see it, in process: a fake apiserver (Nodes, Pods, TokenReview,
// SubjectAccessReview, extension-apiserver-authentication) and a fake kubelet serving /metrics/resource whose
// counters grow by a fixed amount per scrape. Usage is computed from two scrapes; lists honour label and field
// selectors; NotFound, 401 and 403 read as metrics-server's; /readyz waits for the first scrape.
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFlags, silentLogger } from '@kemu/base';
import { freePort } from '@kemu/base/testing/ports';
import { waitFor } from '@kemu/base/testing/processes';
import { CA_PROFILE, KUBERNETES_PROFILE, certificatePem, generatePrivateKey, issueCertificate, privateKeyPem, selfSignedServingCert, templateFromProfile, type Signer } from '@kemu/pki';
import { FakeReviewer } from '@kemu/client/testing/fake-reviewer';
import { httpsGet, type HttpsGetOptions } from '@kemu/client/testing/https-get';
import { FLAGS } from './options.ts';
import { cpuQuantity, memoryQuantity } from './quantity.ts';
import { startMetricsServer, type RunningMetricsServer } from './server.ts';

let dir = '';
let reviewer: FakeReviewer;
let kubelet: https.Server;
let server: RunningMetricsServer;
const kubeletRequests: { path: string; auth: string }[] = [];
let scrapes = 0;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const creds: Record<string, { cert: string; key: string }> = {};

async function makeCA(cn: string): Promise<Signer> {
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  return { key, cert: await issueCertificate(templateFromProfile(CA_PROFILE, { subject: { CN: cn }, publicKey: key, isCA: true, nowMs: Date.now() }), { selfKey: key }) };
}
async function client(signer: Signer, cn: string, orgs: string[] = []): Promise<{ cert: string; key: string }> {
  const key: KeyObject = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const cert = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: cn, O: orgs }, publicKey: key, nowMs: Date.now() }), signer);
  return { cert: certificatePem(cert), key: privateKeyPem(key) };
}

/** The kubelet's resource metrics after n scrapes: web-1/app 250m, web-1/side 6.25m, db/db 1 core, the node 300m. */
function resourceMetrics(n: number): string {
  const ts = ` ${T0 + n * 10_000}`;
  const c = (pod: string, container: string) => `{container="${container}",namespace="default",pod="${pod}"}`;
  return [
    '# TYPE container_cpu_usage_seconds_total counter',
    `container_cpu_usage_seconds_total${c('web-1', 'app')} ${n * 2.5}${ts}`,
    `container_cpu_usage_seconds_total${c('web-1', 'side')} ${n * 0.0625}${ts}`,
    `container_cpu_usage_seconds_total${c('db', 'db')} ${n * 10}${ts}`,
    '# TYPE container_memory_working_set_bytes gauge',
    `container_memory_working_set_bytes${c('web-1', 'app')} ${100 * 1024 * 1024}${ts}`,
    `container_memory_working_set_bytes${c('web-1', 'side')} ${4 * 1024 * 1024}${ts}`,
    `container_memory_working_set_bytes${c('db', 'db')} 1e+06${ts}`,
    `container_start_time_seconds${c('db', 'db')} ${T0 / 1000 - 3600}${ts}`,
    `node_cpu_usage_seconds_total ${n * 3}${ts}`,
    `node_memory_working_set_bytes ${512 * 1024 * 1024}${ts}`,
    'resource_scrape_error 0',
    '',
  ].join('\n');
}

const url = (p: string) => `https://127.0.0.1:${server.port}${p}`;
const get = async (p: string, o: HttpsGetOptions = { cred: creds.admin }) => {
  const r = await httpsGet(url(p), o);
  return { status: r.status, body: r.body, json: () => JSON.parse(r.body) as Record<string, unknown> };
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-metrics-server-'));
  const [ca, frontProxyCA] = await Promise.all([makeCA('kubernetes'), makeCA('front-proxy-ca')]);
  [creds.admin, creds.proxy, creds.jane] = await Promise.all([client(ca, 'kubernetes-admin', ['system:masters']), client(frontProxyCA, 'front-proxy-client'), client(ca, 'jane')]);

  const serving = await selfSignedServingCert({ host: 'localhost', alternateIPs: ['127.0.0.1'] });
  kubelet = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    kubeletRequests.push({ path: req.url ?? '', auth: String(req.headers.authorization ?? '') });
    if (req.url !== '/metrics/resource') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(resourceMetrics(++scrapes));
  });
  const kubeletPort = await new Promise<number>((r) => kubelet.listen(0, '127.0.0.1', () => r((kubelet.address() as AddressInfo).port)));

  reviewer = await new FakeReviewer().start();
  reviewer.tokens.set('ms-token', { username: 'system:serviceaccount:kube-system:metrics-server', groups: ['system:serviceaccounts'] });
  reviewer.tokens.set('hpa-token', { username: 'system:serviceaccount:kube-system:horizontal-pod-autoscaler', groups: ['system:serviceaccounts'] });
  // Only jane may list pods in default, only the HPA may get them; nobody else gets anything.
  reviewer.sar = (s) => {
    const r = s.resourceAttributes;
    if (s.user === 'jane' && r?.verb === 'list' && r.resource === 'pods' && r.group === 'metrics.k8s.io' && r.namespace === 'default') return { allowed: true };
    if (s.user === 'system:serviceaccount:kube-system:horizontal-pod-autoscaler' && r?.resource === 'pods') return { allowed: true };
    return { allowed: false };
  };
  reviewer.setConfigMap('kube-system', 'extension-apiserver-authentication', {
    'client-ca-file': certificatePem(ca.cert),
    'requestheader-client-ca-file': certificatePem(frontProxyCA.cert),
    'requestheader-allowed-names': '["front-proxy-client"]',
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
  });
  const status = (port: number) => ({ addresses: [{ type: 'Hostname', address: 'n1' }, { type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } });
  reviewer.api.put('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { zone: 'a' } }, status: status(kubeletPort) });
  // A node whose kubelet does not answer: no metrics.
  reviewer.api.put('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'gone', labels: { zone: 'b' } }, status: status(await freePort()) });
  const pod = (name: string, labels: Record<string, string>, phase: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels }, spec: { nodeName: 'n1', containers: [] }, status: { phase } });
  reviewer.api.put('/api/v1/pods', pod('web-1', { app: 'web' }, 'Running'));
  reviewer.api.put('/api/v1/pods', pod('db', { app: 'db' }, 'Running'));
  reviewer.api.put('/api/v1/pods', pod('pending', { app: 'web' }, 'Pending'));

  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${reviewer.url}"}}]\nusers: [{name: u, user: {token: ms-token}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`);
  const flags = parseFlags(FLAGS, [
    `--kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${await freePort()}`,
    '--kubelet-insecure-tls',
    '--kubelet-use-node-status-port',
    '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
    '--kubelet-request-timeout=2s',
    // One scrape by the loop; the test scrapes again by hand.
    '--metric-resolution=1h',
  ]);
  server = await startMetricsServer(flags, silentLogger());
}, 60_000);

afterAll(async () => {
  await server?.close();
  kubelet?.close();
  await reviewer?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('metrics-server', () => {
  it('is ready after its first scrape, and needs a second one for usage', async () => {
    expect((await get('/livez', {})).status).toBe(200);
    await waitFor('readyz', async () => (await get('/readyz', {})).status === 200, 30_000, 100);
    expect(kubeletRequests[0]).toEqual({ path: '/metrics/resource', auth: 'Bearer ms-token' });
    // One point per container so far: nothing to show.
    expect((await get('/apis/metrics.k8s.io/v1beta1/nodes')).json().items).toEqual([]);
    const n1 = await get('/apis/metrics.k8s.io/v1beta1/nodes/n1');
    expect([n1.status, n1.json().message]).toEqual([404, 'nodemetrics.metrics.k8s.io "n1" not found']);
    await server.scrapeOnce();
  }, 60_000);

  it('serves discovery', async () => {
    const rl = (await get('/apis/metrics.k8s.io/v1beta1')).json();
    expect(rl).toMatchObject({ kind: 'APIResourceList', groupVersion: 'metrics.k8s.io/v1beta1' });
    expect((rl.resources as { name: string; kind: string; namespaced: boolean; verbs: string[] }[]).map((r) => [r.name, r.kind, r.namespaced, r.verbs.join()])).toEqual([
      ['nodes', 'NodeMetrics', false, 'get,list'],
      ['pods', 'PodMetrics', true, 'get,list'],
    ]);
    expect((await get('/apis/metrics.k8s.io')).json()).toMatchObject({ kind: 'APIGroup', preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1' } });
  });

  it('serves NodeMetrics and PodMetrics from the two last scrapes, with label and field selectors', async () => {
    const t = (n: number) => new Date(T0 + n * 10_000).toISOString().replace('.000Z', 'Z');
    const n1 = (await get('/apis/metrics.k8s.io/v1beta1/nodes/n1')).json();
    expect(n1).toMatchObject({ kind: 'NodeMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { name: 'n1', labels: { zone: 'a' } }, timestamp: t(2), window: '10s', usage: { cpu: '300m', memory: '512Mi' } });
    const nodes = (await get('/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=zone%20in%20(a,b)')).json();
    expect((nodes.items as { metadata: { name: string } }[]).map((i) => i.metadata.name)).toEqual(['n1']);
    expect((await get('/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=zone%3Db')).json().items).toEqual([]);
    const web = (await get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dweb')).json();
    expect(web).toMatchObject({
      kind: 'PodMetricsList',
      items: [{ metadata: { name: 'web-1', namespace: 'default' }, window: '10s', containers: [{ name: 'app', usage: { cpu: '250m', memory: '100Mi' } }, { name: 'side', usage: { cpu: '6250u', memory: '4Mi' } }] }],
    });
    expect((web.items as unknown[]).length).toBe(1);
    const all = (await get('/apis/metrics.k8s.io/v1beta1/pods')).json();
    expect((all.items as { metadata: { name: string } }[]).map((i) => i.metadata.name)).toEqual(['db', 'web-1']);
    const byName = (await get('/apis/metrics.k8s.io/v1beta1/pods?fieldSelector=metadata.name%3Ddb')).json();
    expect(byName.items).toMatchObject([{ metadata: { name: 'db' }, containers: [{ name: 'db', usage: { cpu: '1', memory: '1000000' } }] }]);
    const bad = await get('/apis/metrics.k8s.io/v1beta1/pods?fieldSelector=spec.nodeName%3Dn1');
    expect([bad.status, bad.json().reason]).toEqual([400, 'BadRequest']);
    // labels.Parse's grammar and words, as kube-apiserver answers the same selector.
    const badLabels = await get('/apis/metrics.k8s.io/v1beta1/pods?labelSelector=app%20in%20(a');
    expect([badLabels.status, badLabels.json().message]).toEqual([400, "unable to parse requirement: found '', expected: ',' or ')'"]);
  });

  it("answers NotFound in metrics-server's words and refuses writes", async () => {
    const cases: [string, string][] = [
      ['/apis/metrics.k8s.io/v1beta1/nodes/gone', 'nodemetrics.metrics.k8s.io "gone" not found'],
      ['/apis/metrics.k8s.io/v1beta1/nodes/nope', 'node "nope" not found'],
      ['/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/pending', 'podmetrics.metrics.k8s.io "default/pending" not found'],
      ['/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope', 'pod "nope" not found'],
    ];
    for (const [p, message] of cases) {
      const r = await get(p);
      expect([r.status, r.json().message]).toEqual([404, message]);
    }
    const post = await new Promise<number>((resolve, reject) => {
      const req = https.request(url('/apis/metrics.k8s.io/v1beta1/nodes'), { method: 'POST', rejectUnauthorized: false, cert: creds.admin?.cert, key: creds.admin?.key, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(post).toBe(405);
  });

  it('authenticates the aggregator by its front-proxy certificate, tokens by TokenReview, and authorizes by SubjectAccessReview', async () => {
    const list = '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods';
    const asJane = { cred: creds.proxy, headers: { 'X-Remote-User': 'jane', 'X-Remote-Group': 'devs' } };
    expect((await get(list, asJane)).status).toBe(200);
    expect(reviewer.accessReviews.at(-1)).toMatchObject({ user: 'jane', groups: ['devs', 'system:authenticated'], resourceAttributes: { verb: 'list', group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods', namespace: 'default' } });
    const get1 = await get(`${list}/db`, asJane);
    expect([get1.status, get1.json().message]).toEqual([403, 'pods.metrics.k8s.io "db" is forbidden: User "jane" cannot get resource "pods" in API group "metrics.k8s.io" in the namespace "default"']);
    // The headers without the front-proxy certificate say nothing: anonymous.
    const forged = await get('/apis/metrics.k8s.io/v1beta1/nodes', { headers: { 'X-Remote-User': 'kubernetes-admin', 'X-Remote-Group': 'system:masters' } });
    expect([forged.status, forged.json().message]).toEqual([403, 'nodes.metrics.k8s.io is forbidden: User "system:anonymous" cannot list resource "nodes" in API group "metrics.k8s.io" at the cluster scope']);
    expect((await get(`${list}/db`, { token: 'hpa-token' })).status).toBe(200);
    expect((await get(list, { token: 'bad-token' })).status).toBe(401);
    // A client certificate from the cluster CA names the user (jane may not list nodes).
    expect((await get('/apis/metrics.k8s.io/v1beta1/nodes', { cred: creds.jane })).status).toBe(403);
    // Health is open; /metrics is not.
    expect((await get('/healthz', {})).status).toBe(200);
    expect((await get('/metrics', {})).status).toBe(403);
    expect((await get('/metrics')).body).toContain('metrics_server_manager_tick_duration_seconds');
  });

  it('formats quantities canonically', () => {
    expect([0, 250_000_000, 2e9, 1_500_000, 123_456_789, 249_999_999.9].map(cpuQuantity)).toEqual(['0', '250m', '2', '1500u', '123456789n', '249999999n']);
    expect([1024, 100 * 1024 * 1024, 1_000_000, 3 * 1024 ** 3].map(memoryQuantity)).toEqual(['1Ki', '100Mi', '1000000', '3Gi']);
  });
});
