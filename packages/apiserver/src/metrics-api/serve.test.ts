// metrics.k8s.io served by the apiserver from kubelets' /stats/summary (a kubelet stand-in over HTTPS): discovery
// lists the group, NodeMetrics and PodMetrics by name and in lists with label selectors, NotFound in
// metrics-server's words, one scrape per node per resolution, and `kubectl top nodes|pods` as a user sees it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCa } from '../authn/testing/certs.ts';
import { clientPair, servingPair } from '../kubelet-client/testing/fake-kubelet.ts';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { cpuQuantity, memoryQuantity } from './serve.ts';

let srv: ApiServer;
let kubelet: https.Server;
let scrapes = 0;
let base = '';
let dir = '';
const NOW = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const usage = (nanoCores: number, bytes: number) => ({ cpu: { time: NOW, usageNanoCores: nanoCores, usageCoreNanoSeconds: 1 }, memory: { time: NOW, workingSetBytes: bytes } });
const summary = {
  node: { nodeName: 'n1', ...usage(300_000_000, 512 * 1024 * 1024) },
  pods: [
    { podRef: { name: 'web-1', namespace: 'default', uid: 'u1' }, containers: [{ name: 'app', ...usage(250_000_000, 100 * 1024 * 1024) }, { name: 'side', ...usage(1_500_000, 4 * 1024 * 1024) }] },
    { podRef: { name: 'db', namespace: 'default', uid: 'u2' }, containers: [{ name: 'db', ...usage(1_000_000_000, 1_000_000) }] },
  ],
};

async function call(url: string, method = 'GET') {
  const r = await srv.app.inject({ method: method as 'GET', url });
  return { status: r.statusCode, json: () => JSON.parse(r.body) as Record<string, unknown> };
}

beforeAll(async () => {
  const ca = await makeCa('kubernetes');
  kubelet = https.createServer({ ...(await servingPair(ca, ['127.0.0.1'])) }, (req, res) => {
    if (req.url !== '/stats/summary') return void res.writeHead(404).end();
    scrapes++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(summary));
  });
  const port = await new Promise<number>((r) => kubelet.listen(0, '127.0.0.1', () => r((kubelet.address() as AddressInfo).port)));
  const client = await clientPair(ca, 'kube-apiserver');
  srv = await startMemoryApiServer({ kubelet: { cert: Buffer.from(client.cert), key: Buffer.from(client.key), preferredAddressTypes: ['InternalIP'], defaultPort: 10250, dialTimeoutMs: 2000 } });
  await srv.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(srv.app.server.address() as AddressInfo).port}`;
  const post = async (url: string, body: Record<string, unknown>) => expect((await srv.app.inject({ method: 'POST', url, payload: body })).statusCode).toBe(201);
  await post('/api/v1/nodes', { metadata: { name: 'n1', labels: { zone: 'a' } } });
  await srv.app.inject({ method: 'PATCH', url: '/api/v1/nodes/n1/status', headers: { 'content-type': 'application/merge-patch+json' }, payload: { status: { allocatable: { cpu: '2', memory: '4Gi' }, addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } } });
  await post('/api/v1/nodes', { metadata: { name: 'gone' } });
  const c = (name: string) => ({ name, image: 'nginx' });
  await post('/api/v1/namespaces/default/pods', { metadata: { name: 'web-1', labels: { app: 'web' } }, spec: { nodeName: 'n1', containers: [c('app'), c('side')] } });
  await post('/api/v1/namespaces/default/pods', { metadata: { name: 'db', labels: { app: 'db' } }, spec: { nodeName: 'n1', containers: [c('db')] } });
  await post('/api/v1/namespaces/default/pods', { metadata: { name: 'pending' }, spec: { containers: [c('app')] } });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-top-'));
  fs.writeFileSync(path.join(dir, 'kubeconfig'), `apiVersion: v1\nkind: Config\nclusters: [{name: k, cluster: {server: "${base}"}}]\ncontexts: [{name: k, context: {cluster: k, namespace: default}}]\ncurrent-context: k\n`);
}, 60_000);

afterAll(async () => {
  await srv?.close();
  kubelet?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('metrics.k8s.io', () => {
  it('is in discovery', async () => {
    const g = await call('/apis/metrics.k8s.io');
    expect(g.json()).toMatchObject({ kind: 'APIGroup', name: 'metrics.k8s.io', preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1' } });
    const rl = await call('/apis/metrics.k8s.io/v1beta1');
    expect((rl.json().resources as { name: string; kind: string; namespaced: boolean }[]).map((r) => [r.name, r.kind, r.namespaced])).toEqual([
      ['nodes', 'NodeMetrics', false],
      ['pods', 'PodMetrics', true],
    ]);
  });

  it('serves NodeMetrics and PodMetrics from the kubelets, one scrape per node per resolution', async () => {
    const before = scrapes;
    const n = await call('/apis/metrics.k8s.io/v1beta1/nodes/n1');
    expect(n.json()).toMatchObject({ kind: 'NodeMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { name: 'n1', labels: { zone: 'a' } }, timestamp: NOW, window: '15s', usage: { cpu: '300m', memory: '512Mi' } });
    const list = await call('/apis/metrics.k8s.io/v1beta1/nodes');
    expect((list.json().items as { metadata: { name: string } }[]).map((i) => i.metadata.name)).toEqual(['n1']);
    const pods = await call('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dweb');
    expect(pods.json()).toMatchObject({
      kind: 'PodMetricsList',
      items: [{ metadata: { name: 'web-1', namespace: 'default' }, containers: [{ name: 'app', usage: { cpu: '250m', memory: '100Mi' } }, { name: 'side', usage: { cpu: '1500u', memory: '4Mi' } }] }],
    });
    expect((await call('/apis/metrics.k8s.io/v1beta1/pods')).json().items).toHaveLength(2);
    expect(scrapes - before).toBe(1);
  });

  it("answers NotFound in metrics-server's words and refuses writes", async () => {
    const gone = await call('/apis/metrics.k8s.io/v1beta1/nodes/gone');
    expect([gone.status, gone.json().message]).toEqual([404, 'nodes.metrics.k8s.io "gone" not found']);
    const pending = await call('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/pending');
    expect([pending.status, pending.json().message]).toEqual([404, 'pods.metrics.k8s.io "pending" not found']);
    expect((await call('/apis/metrics.k8s.io/v1beta1/nodes', 'POST')).status).toBe(405);
  });

  it('formats quantities canonically', () => {
    expect([0, 250_000_000, 2e9, 1_500_000, 123_456_789].map(cpuQuantity)).toEqual(['0', '250m', '2', '1500u', '123456789n']);
    expect([1024, 100 * 1024 * 1024, 1_000_000, 3 * 1024 ** 3].map(memoryQuantity)).toEqual(['1Ki', '100Mi', '1000000', '3Gi']);
  });

  const kubectl = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('kubectl', args, { env: { ...process.env, HOME: dir, KUBECONFIG: path.join(dir, 'kubeconfig') }, timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
      ),
    );

  it('kubectl top nodes and pods print as real', async () => {
    const nodes = await kubectl('top', 'nodes');
    expect(nodes.stdout.split('\n')[0]).toMatch(/^NAME\s+CPU\(cores\)\s+CPU(%)?\s*\(?%?\)?\s*MEMORY\(bytes\)\s+MEMORY(%)?/);
    expect(nodes.stdout).toMatch(/\nn1\s+300m\s+15%\s+512Mi\s+12%\s*\n/);
    expect(nodes.stdout).toMatch(/\ngone\s+<unknown>/);
    const pods = await kubectl('top', 'pods');
    expect(pods).toMatchObject({ code: 0, stderr: '' });
    expect(pods.stdout).toMatch(/^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\ndb\s+1000m\s+0Mi\s*\nweb-1\s+252m\s+104Mi\s*\n$/);
    const containers = await kubectl('top', 'pod', 'web-1', '--containers');
    expect(containers.stdout).toMatch(/^POD\s+NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\nweb-1\s+app\s+250m\s+100Mi\s*\nweb-1\s+side\s+2m\s+4Mi\s*\n$/);
  }, 60_000);
});
