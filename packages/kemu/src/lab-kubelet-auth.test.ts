// A lab kubelet's API as its callers see it, in process: the lab's PKI (pre-issued node certificates), an apiserver
// with Node,RBAC and the lab's kube-apiserver:kubelet-apis binding, and a kubelet secure port started with
// labKubeletAuthFlags whose SubjectAccessReviews go to that apiserver with worker-0's own certificate. Another
// node's identity gets the kubelet's 403, no credentials its 401, while `pods/log` through the apiserver (its
// apiserver.pem, CN kube-apiserver) reads the container's output; the open healthz port needs nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type KubeObject, type PodSpec } from '@kemu/api';
import { createApiServer, ensureBootstrapPolicy, ensureSystemNamespaces, type ApiServer } from '@kemu/apiserver';
import { loadCaBundle } from '@kemu/apiserver/authn/options';
import { x509Authenticator } from '@kemu/apiserver/authn/x509';
import { newMetricsRegistry, parseFlags, realClock, silentLogger, startHealthServer, type HealthServer } from '@kemu/base';
import { freePort } from '@kemu/base/testing/ports';
import { waitFor } from '@kemu/base/testing/processes';
import { RestClient, kubeletSecureServing, loadClientConfig } from '@kemu/client';
import { httpsGet } from '@kemu/client/testing/https-get';
import { FLAGS as KUBELET_FLAGS, PodLifecycle, kubeletRoutes, podNodeOf, startKubeletHealthz, type KubeletHealthz, type LoggedPod } from '@kemu/kubelet';
import { driveOnRealClock, lifecycleEnv } from '@kemu/kubelet/testing';
import { MemoryBackend } from '@kemu/store';
import { kubeletApiBinding } from './bootstrap-objects.ts';
import { ensureLabPki, labPkiFiles } from './lab-pki.ts';
import { labKubeletAuthFlags } from './topology.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-kubelet-auth-'));
const pki = labPkiFiles(dir);
const pods = new Map<string, LoggedPod>();
const timers = new Set<NodeJS.Timeout>();
const clients: RestClient[] = [];
let apiserver: ApiServer;
let kubelet: HealthServer;
let healthz: KubeletHealthz;
let admin: RestClient;

/** A node's certificate and key, as `kemu up --kubelet-bootstrap=false` issued them. */
const nodeCred = (node: string) => ({ cert: fs.readFileSync(path.join(pki.dir, `kubelet-${node}.pem`), 'utf8'), key: fs.readFileSync(path.join(pki.dir, `kubelet-${node}-key.pem`), 'utf8') });
const apiserverCred = () => ({ cert: fs.readFileSync(pki.apiserverCert, 'utf8'), key: fs.readFileSync(pki.apiserverKey, 'utf8') });

/** Runs a pod's lifecycle on the real clock, as the kubelet's pod worker would. */
function run(name: string, spec: PodSpec): void {
  const lc = new PodLifecycle({ name, namespace: 'default', uid: name }, spec, undefined, lifecycleEnv(0, new Set([...spec.containers.map((c) => c.image ?? '')])), realClock.now());
  driveOnRealClock(lc, timers);
  pods.set(`default/${name}`, { current: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: name }, spec }, lifecycle: lc });
}

beforeAll(async () => {
  const apiPort = await freePort();
  const server = `https://127.0.0.1:${apiPort}`;
  await ensureLabPki({ dataDir: dir, server, lbAddress: '127.0.0.1', apiserverAddresses: ['127.0.0.1'], nodes: ['worker-0', 'worker-1'] });
  apiserver = await createApiServer({
    backend: new MemoryBackend(),
    logger: silentLogger(),
    https: { cert: fs.readFileSync(pki.apiserverCert), key: fs.readFileSync(pki.apiserverKey), ca: fs.readFileSync(pki.ca), requestCert: true, rejectUnauthorized: false },
    authentication: { authenticator: x509Authenticator(loadCaBundle(pki.ca)) },
    authorizationModes: ['Node', 'RBAC'],
    // Seed 003's --kubelet-client-certificate/--kubelet-client-key (labApiserverKubeletFlags).
    kubelet: { cert: fs.readFileSync(pki.apiserverCert), key: fs.readFileSync(pki.apiserverKey), preferredAddressTypes: ['InternalIP', 'ExternalIP', 'Hostname'], defaultPort: 10250, dialTimeoutMs: 2000 },
  });
  await apiserver.start();
  await ensureSystemNamespaces(apiserver.ctx.registry);
  await ensureBootstrapPolicy(apiserver.ctx.registry, silentLogger());
  await apiserver.app.listen({ host: '127.0.0.1', port: apiPort });
  const client = (kubeconfig: string) => {
    const c = new RestClient(loadClientConfig({ kubeconfig }), { maxRetries: 0 });
    clients.push(c);
    return c;
  };
  admin = client(path.join(dir, 'admin.kubeconfig'));
  // What ensureLabBootstrap creates: the apiservers' identity may use every kubelet's API.
  await admin.create(R.clusterrolebindings, undefined, kubeletApiBinding());

  // worker-0's kubelet: the lab's flags, its own client sending the TokenReviews and SubjectAccessReviews.
  const [kubeletPort, healthzPort] = [await freePort(), await freePort()];
  const flags = parseFlags(KUBELET_FLAGS, ['--cert-dir=', ...labKubeletAuthFlags(pki), '--bind-address=127.0.0.1', `--secure-port=${kubeletPort}`, '--healthz-bind-address=127.0.0.1', `--healthz-port=${healthzPort}`]);
  const findPod = (ns: string, name: string) => pods.get(`${ns}/${name}`);
  const serving = await kubeletSecureServing(flags, {
    nodeName: 'worker-0',
    hostname: 'worker-0',
    client: client(pki.kubeletKubeconfig('worker-0')),
    logger: silentLogger(),
    nodeFor: (p) => podNodeOf(p, findPod),
  });
  const routes = kubeletRoutes({ findPod, clock: realClock, logger: silentLogger() });
  kubelet = (await startHealthServer({ bindAddress: flags['bind-address'], port: flags['secure-port'], checks: {}, registry: newMetricsRegistry(), routes, ...serving }))!;
  healthz = startKubeletHealthz(flags, silentLogger());

  // The Node as the kubelet reports it (its InternalIP and port), and a pod that printed one line.
  await admin.create(R.nodes, undefined, { metadata: { name: 'worker-0' } } as KubeObject);
  await admin.patch(R.nodes, undefined, 'worker-0', { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } } } }, 'merge', { subresource: 'status' });
  const spec: PodSpec = { nodeName: 'worker-0', restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'echo hello from worker-0'] }] };
  await admin.create(R.pods, 'default', { metadata: { name: 'hello', namespace: 'default' }, spec } as KubeObject);
  run('hello', spec);
}, 60_000);

afterAll(async () => {
  for (const t of timers) clearTimeout(t);
  await healthz?.close();
  await kubelet?.close();
  await Promise.all(clients.map((c) => c.close()));
  await apiserver?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const kubeletGet = (p: string, cred?: { cert: string; key: string }) => httpsGet(`https://127.0.0.1:${kubelet.port}${p}`, cred ? { cred } : {});

describe("a lab kubelet's API", () => {
  it("serves pods/log to the apiserver's identity (apiserver.pem, bound to system:kubelet-api-admin)", async () => {
    const log = await waitFor('the container to have written', async () => {
      const r = await admin.raw('GET', '/api/v1/namespaces/default/pods/hello/log');
      return r.status === 200 && r.body !== '' ? r : undefined;
    }, 10_000);
    expect(log.body).toBe('hello from worker-0\n');
    const direct = await kubeletGet('/containerLogs/default/hello/c', apiserverCred());
    expect([direct.status, direct.body]).toEqual([200, 'hello from worker-0\n']);
  });

  it("refuses another node's identity with the kubelet's 403, and a caller without credentials with 401", async () => {
    const other = await kubeletGet('/containerLogs/default/hello/c', nodeCred('worker-1'));
    expect([other.status, other.body]).toEqual([403, 'Forbidden (user=system:node:worker-1, verb=get, resource=nodes, subresource=proxy)']);
    // Its own node fares no better: nodes/proxy is not among the rights the Node authorizer gives a kubelet.
    const self = await kubeletGet('/healthz', nodeCred('worker-0'));
    expect([self.status, self.body]).toEqual([403, 'Forbidden (user=system:node:worker-0, verb=get, resource=nodes, subresource=proxy)']);
    const anonymous = await kubeletGet('/healthz');
    expect([anonymous.status, anonymous.body]).toEqual([401, 'Unauthorized']);
  });

  it('answers /healthz on the healthz port without credentials', async () => {
    const port = await healthz.listening;
    const r = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect([r.status, await r.text()]).toEqual([200, 'ok']);
  });
});
