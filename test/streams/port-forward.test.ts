// The connect subresources against a real `kemu up` lab (one of each, one worker) with real kubectl: port-forward
// to pod/, svc/ and deploy/ forms with an HTTP request through it (the emulated nginx's page), and
// `kubectl get --raw` / `kubectl proxy` through pods/proxy, services/proxy and nodes/proxy (with a WebSocket to
// jmalloc/echo-server); the emulated
// kube-proxy: wget/curl from a pod to the Service, a NodePort from the host, endpoints after a scale-down.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { freePort } from '@kemu/base/testing/ports';
import { waitFor } from '@kemu/base/testing/processes';
import { hasKubectl, missing, startLab, type Lab } from '../lab/lab.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');

let lab: Lab;
let podName = '';
let nodeName = '';
const children: ChildProcess[] = [];

function httpGet(port: number, path = '/', host = '127.0.0.1'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host, port, path, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

/** Starts a long-running kubectl and resolves once its output has `ready`; it is killed (by pid) after the tests. */
async function kubectlUntil(ready: RegExp, ...args: string[]): Promise<{ child: ChildProcess; output: () => string }> {
  return kubectlEnvUntil({}, ready, ...args);
}

async function kubectlEnvUntil(env: Record<string, string>, ready: RegExp, ...args: string[]): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn('kubectl', [`--kubeconfig=${lab.kubeconfig}`, ...args], { env: { ...process.env, HOME: lab.dir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  await waitFor(`kubectl ${args.join(' ')}`, () => ready.test(out) || (child.exitCode !== null && Promise.reject(new Error(out))), 20_000, 50);
  return { child, output: () => out };
}

function stop(child: ChildProcess): void {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

describe.skipIf(skip)('port-forward and the proxies through a lab', () => {
  beforeAll(async () => {
    lab = await startLab({ apiservers: 1, controllerManagers: 1, schedulers: 1, workers: 1, imagePullDelay: '0s' });
    await lab.waitRunning();
    await waitFor('a Ready node', async () => (await lab.kubectl('get', 'nodes')).stdout.includes(' Ready '), 60_000, 250);
    expect((await lab.kubectl('create', 'deployment', 'web', '--image=nginx:1.27.3', '--port=80')).code).toBe(0);
    expect((await lab.kubectl('expose', 'deployment', 'web', '--port=80')).code).toBe(0);
    // A WebSocket echo server for the proxies' upgrades (started now, used later).
    expect((await lab.kubectl('run', 'echo', '--image=jmalloc/echo-server:0.3.7', '--port=8080', '--expose')).code).toBe(0);
    await waitFor(
      'the web pod running with an endpoint',
      async () => {
        const r = await lab.kubectl('get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[0].addresses[0].targetRef.name}');
        podName = r.stdout.trim();
        return podName !== '';
      },
      60_000,
      250,
    );
    nodeName = (await lab.kubectl('get', 'pod', podName, '-o', 'jsonpath={.spec.nodeName}')).stdout.trim();
  }, 150_000);

  afterAll(async () => {
    for (const c of children) stop(c);
    await lab?.down();
  }, 60_000);

  it('kubectl port-forward pod/… then an HTTP request gets nginx\'s page', async () => {
    const port = await freePort();
    // -v=4 logs which dialer won: kubectl 1.31 tries the WebSocket tunnel first.
    const pf = await kubectlUntil(/Forwarding from/, '-v=4', 'port-forward', '--address=127.0.0.1', `pod/${podName}`, `${port}:80`);
    expect(pf.output()).toContain(`Forwarding from 127.0.0.1:${port} -> 80`);
    expect(pf.output()).toMatch(/negotiated protocol: portforward\.k8s\.io|Negotiation complete.*protocol="portforward\.k8s\.io"/);
    expect(pf.output()).not.toContain('fallback to secondary dialer');
    const r = await httpGet(port);
    expect(r.status).toBe(200);
    expect(r.headers.server).toBe('nginx/1.27.3');
    expect(r.body).toContain('<title>Welcome to nginx!</title>');
    // A second connection through the same session.
    expect((await httpGet(port, '/missing')).status).toBe(404);
    await waitFor('kubectl reports the connections', () => /Handling connection for \d+[\s\S]*Handling connection/.test(pf.output()), 10_000, 50);
    stop(pf.child);
  }, 40_000);

  it('kubectl port-forward svc/… and deploy/… resolve to the pod; a port nothing listens on is an error from the node', async () => {
    const [p1, p2, p3] = [await freePort(), await freePort(), await freePort()];
    const svc = await kubectlUntil(/Forwarding from/, 'port-forward', '--address=127.0.0.1', 'svc/web', `${p1}:80`);
    expect((await httpGet(p1)).body).toContain('Welcome to nginx!');
    // Without the WebSocket tunnel (kubectl's switch for it): a direct SPDY/3.1 upgrade.
    const deploy = await kubectlEnvUntil({ KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }, /Forwarding from/, '-v=4', 'port-forward', '--address=127.0.0.1', 'deploy/web', `${p2}:80`);
    expect(deploy.output()).not.toContain('tunneling_dialer');
    expect((await httpGet(p2)).status).toBe(200);
    const closed = await kubectlUntil(/Forwarding from/, 'port-forward', '--address=127.0.0.1', `pod/${podName}`, `${p3}:81`);
    await httpGet(p3).catch(() => undefined);
    await waitFor('the forwarding error', () => /error forwarding port 81 to pod [0-9a-f]{64}, uid : failed to execute portforward in network namespace/.test(closed.output()), 10_000, 50);
    for (const c of [svc, deploy, closed]) stop(c.child);
  }, 40_000);

  it('pods/proxy, services/proxy and nodes/proxy through kubectl get --raw', async () => {
    const pod = await lab.kubectl('get', '--raw', `/api/v1/namespaces/default/pods/${podName}/proxy/`);
    expect(pod.stdout).toContain('<title>Welcome to nginx!</title>');
    const svc = await lab.kubectl('get', '--raw', '/api/v1/namespaces/default/services/web/proxy/');
    expect(svc.stdout).toContain('<title>Welcome to nginx!</title>');
    const healthz = await lab.kubectl('get', '--raw', `/api/v1/nodes/${nodeName}/proxy/healthz`);
    expect([healthz.code, healthz.stdout]).toEqual([0, 'ok']);
    const pods = JSON.parse((await lab.kubectl('get', '--raw', `/api/v1/nodes/${nodeName}/proxy/pods`)).stdout) as { kind: string; items: { metadata: { name: string } }[] };
    expect(pods.kind).toBe('PodList');
    expect(pods.items.map((p) => p.metadata.name)).toContain(podName);
    const refused = await lab.kubectl('get', '--raw', `/api/v1/namespaces/default/pods/${podName}:81/proxy/`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Error from server (ServiceUnavailable)');
    const none = await lab.kubectl('get', '--raw', '/api/v1/namespaces/default/services/nope/proxy/');
    expect(none.stderr).toContain('Error from server (NotFound): services "nope" not found');
  }, 30_000);

  it('kubectl proxy then a request to the service proxy', async () => {
    const port = await freePort();
    const proxy = await kubectlUntil(/Starting to serve/, 'proxy', `--port=${port}`);
    const r = await httpGet(port, '/api/v1/namespaces/default/services/web/proxy/');
    expect(r.status).toBe(200);
    expect(r.body).toContain('<title>Welcome to nginx!</title>');
    // A WebSocket through kubectl proxy and the service proxy reaches the echo server, which greets and echoes.
    await waitFor('the echo endpoint', async () => (await lab.kubectl('get', 'endpoints', 'echo', '-o', 'jsonpath={.subsets[0].addresses[0].ip}')).stdout.trim() !== '', 60_000, 250);
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/namespaces/default/services/echo/proxy/ws`);
    const messages: string[] = [];
    ws.on('message', (d: Buffer) => messages.push(d.toString()));
    await new Promise((resolve, reject) => ws.on('open', resolve).on('error', reject));
    ws.send('ping');
    await waitFor('the echo', () => messages.length >= 2, 10_000, 20);
    expect(messages).toEqual(['Request served by echo', 'ping']);
    ws.close();
    // nginx does not upgrade: the apiserver's 500.
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const nginx = new WebSocket(`ws://127.0.0.1:${port}/api/v1/namespaces/default/services/web/proxy/`);
      nginx.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      nginx.on('open', () => reject(new Error('nginx upgraded')));
      nginx.on('error', reject);
    });
    expect(refused.status).toBe(500);
    expect(refused.body).toContain('invalid upgrade response: status code 200');
    stop(proxy.child);
  }, 90_000);

  // The emulated kube-proxy: a client pod's exec'd wget/curl reach the Service; a NodePort answers on the node's address.
  it('kubectl exec … -- wget/curl reach the Service by name, FQDN and ClusterIP', async () => {
    expect((await lab.kubectl('run', 'client', '--image=busybox:1.28', '--restart=Never', '--', 'sleep', '3600')).code).toBe(0);
    expect((await lab.kubectl('wait', '--for=condition=Ready', 'pod/client', '--timeout=60s')).code).toBe(0);
    const clusterIP = (await lab.kubectl('get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}')).stdout.trim();
    for (const url of ['http://web', 'http://web.default.svc.cluster.local', `http://${clusterIP}:80`]) {
      const r = await lab.kubectl('exec', 'client', '--', 'wget', '-q', '-O-', url);
      expect([r.code, r.stdout]).toEqual([0, expect.stringContaining('<title>Welcome to nginx!</title>')]);
    }
    const curl = await lab.kubectl('exec', 'client', '--', 'sh', '-c', 'curl -sf http://web/missing; echo "status=$?"');
    expect(curl.stdout).toContain('status=22');
    const unknown = await lab.kubectl('exec', 'client', '--', 'wget', '-q', '-O-', 'http://nosuch');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("wget: bad address 'nosuch'");
    expect(unknown.stderr).toContain('command terminated with exit code 1');
  }, 90_000);

  it('a NodePort Service answers on the node\'s InternalIP, and the kubelet counts the requests per pod', async () => {
    expect((await lab.kubectl('expose', 'deployment', 'web', '--type=NodePort', '--port=80', '--name=web-np')).code).toBe(0);
    const nodePort = Number((await lab.kubectl('get', 'svc', 'web-np', '-o', 'jsonpath={.spec.ports[0].nodePort}')).stdout.trim());
    const nodeIP = (await lab.kubectl('get', 'node', nodeName, '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}')).stdout.trim();
    expect(nodePort).toBeGreaterThanOrEqual(30000);
    let body = '';
    await waitFor(
      'nginx on the NodePort',
      async () => {
        body = await httpGet(nodePort, '/', nodeIP).then((r) => r.body, () => '');
        return body.includes('Welcome to nginx!');
      },
      30_000,
      100,
    );
    const metrics = (await lab.kubectl('get', '--raw', `/api/v1/nodes/${nodeName}/proxy/metrics`)).stdout;
    const m = new RegExp(`kubelet_emulated_pod_requests_total\\{namespace="default",pod="${podName}"\\} (\\d+)`).exec(metrics);
    expect(Number(m?.[1])).toBeGreaterThanOrEqual(4);
  }, 60_000);

  it('endpoints follow a scale-down: no ready endpoint left, wget is refused and the NodePort resets', async () => {
    expect((await lab.kubectl('scale', 'deployment', 'web', '--replicas=0')).code).toBe(0);
    await waitFor('the web endpoints gone', async () => (await lab.kubectl('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[*].endpoints[*].addresses[0]}')).stdout.trim() === '', 60_000, 250);
    const clusterIP = (await lab.kubectl('get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}')).stdout.trim();
    await waitFor(
      'wget refused',
      async () => (await lab.kubectl('exec', 'client', '--', 'wget', '-q', '-O-', 'http://web')).stderr.includes(`wget: can't connect to remote host (${clusterIP}): Connection refused`),
      20_000,
      250,
    );
    const nodePort = Number((await lab.kubectl('get', 'svc', 'web-np', '-o', 'jsonpath={.spec.ports[0].nodePort}')).stdout.trim());
    const nodeIP = (await lab.kubectl('get', 'node', nodeName, '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}')).stdout.trim();
    // A new connection (each is balanced on its own, as kube-proxy's rules see it) finds no endpoint: reset.
    await expect(httpGet(nodePort, '/', nodeIP)).rejects.toThrow(/ECONNRESET|socket hang up/);
  }, 90_000);
});
