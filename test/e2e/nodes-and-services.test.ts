// Nodes, pods and a Service end to end, on real processes: kubectl applies a Deployment of 6 and a Service;
// the pods get distinct IPs from their nodes' podCIDRs (node-ipam on), spread over 3 workers, and the
// Service's Endpoints and EndpointSlice list them. A kubelet SIGKILLed: its Node goes Unknown, is tainted
// unreachable, its pods are evicted and replaced elsewhere, and the endpoints drop them; the kubelet started
// again: Ready, taints gone.
// `kemu up` does not pass --allocate-node-cidrs to the controller-manager, so this test starts the
// processes itself (one apiserver, controller-manager, scheduler, three kubelets), all on free ports.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { freePort } from '@kemu/base/testing/ports';
import { missing, hasKubectl, run } from '../lab/lab.ts';
import { call, items, rec, PodWatch } from '../lab/api.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/e2e/nodes-and-services.test.ts: ${skip}`);

const WORKERS = ['worker-0', 'worker-1', 'worker-2'];
const LEADER = ['--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=500ms'];

const MANIFEST = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 6
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      tolerations:
      - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 2}
      - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 2}
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
`;

/** IPv4 a.b.c.d → integer. */
function ipInt(ip: string): number {
  return ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
}

function inCIDR(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const start = ipInt(base ?? '');
  return ipInt(ip) >= start && ipInt(ip) < start + size;
}

interface Cluster {
  dir: string;
  server: string;
  kubeconfig: string;
  procs: Proc[];
  kubelets: Map<string, Proc>;
  startKubelet(name: string): Promise<void>;
  kubectl(...args: string[]): ReturnType<typeof run>;
}

async function startCluster(): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-e2e-nodes-'));
  const port = await freePort();
  const server = `http://127.0.0.1:${port}`;
  const procs: Proc[] = [];
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: kemu, cluster: {server: "${server}"}}]`,
    'contexts: [{name: kemu, context: {cluster: kemu, namespace: default}}]',
    'current-context: kemu',
    '',
  ].join('\n'));
  const api = startProcess('kube-apiserver', BIN.apiserver, ['--bind-address=127.0.0.1', '--secure-port=0', `--insecure-port=${port}`, `--datastore-endpoint=sqlite://${path.join(dir, 'state.db')}`]);
  procs.push(api);
  await waitFor('kube-apiserver ready', async () => {
    if (api.child.exitCode !== null) throw new Error(`kube-apiserver exited: ${api.output()}`);
    return (await call(server, 'GET', '/readyz')).status === 200;
  }, 30_000, 100);
  procs.push(startProcess('kube-controller-manager', BIN.controllerManager, [
    `--master=${server}`, '--bind-address=127.0.0.1', `--secure-port=${await freePort()}`, '--hostname-override=controller-manager-0', ...LEADER,
    '--allocate-node-cidrs=true', '--cluster-cidr=10.200.0.0/16',
    '--node-monitor-grace-period=4s', '--node-monitor-period=1s',
  ]));
  procs.push(startProcess('kube-scheduler', BIN.scheduler, [`--master=${server}`, `--secure-port=${await freePort()}`, '--hostname-override=scheduler-0', ...LEADER]));
  const kubelets = new Map<string, Proc>();
  const startKubelet = async (name: string) => {
    const p = startProcess(name, BIN.kubelet, [
      `--master=${server}`, `--hostname-override=${name}`, `--secure-port=${await freePort()}`, `--cert-dir=${path.join(dir, `${name}-pki`)}`,
      '--node-status-update-frequency=1s', '--node-lease-duration-seconds=4',
    ]);
    procs.push(p);
    kubelets.set(name, p);
  };
  for (const w of WORKERS) await startKubelet(w);
  return {
    dir,
    server,
    kubeconfig,
    procs,
    kubelets,
    startKubelet,
    kubectl: (...a) => run('kubectl', [`--kubeconfig=${kubeconfig}`, ...a], { HOME: dir }),
  };
}

interface NodeSeen {
  ready: string | undefined;
  podCIDR: string | undefined;
  taints: string[];
}

async function node(c: Cluster, name: string): Promise<NodeSeen> {
  const o = rec((await call(c.server, 'GET', `/api/v1/nodes/${name}`)).body);
  const spec = rec(o.spec);
  const conds = Array.isArray(rec(o.status).conditions) ? (rec(o.status).conditions as unknown[]).map(rec) : [];
  const taints = Array.isArray(spec.taints) ? spec.taints.map((t) => `${String(rec(t).key)}:${String(rec(t).effect)}`) : [];
  return {
    ready: conds.find((x) => x.type === 'Ready')?.status as string | undefined,
    podCIDR: typeof spec.podCIDR === 'string' ? spec.podCIDR : undefined,
    taints,
  };
}

interface PodFull {
  name: string;
  nodeName: string;
  podIP: string;
  phase: string;
  deleting: boolean;
}

async function webPods(c: Cluster): Promise<PodFull[]> {
  const r = await call(c.server, 'GET', `/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent('app=web')}`);
  return items(r).map((p) => ({
    name: String(rec(p.metadata).name),
    nodeName: String(rec(p.spec).nodeName ?? ''),
    podIP: String(rec(p.status).podIP ?? ''),
    phase: String(rec(p.status).phase ?? ''),
    deleting: typeof rec(p.metadata).deletionTimestamp === 'string',
  }));
}

interface Endpoint {
  ip: string;
  nodeName: string;
  ready: boolean;
  terminating?: boolean;
}

/** Ready and not-ready addresses of Endpoints default/web. */
async function endpoints(c: Cluster): Promise<Endpoint[]> {
  const r = await call(c.server, 'GET', '/api/v1/namespaces/default/endpoints/web');
  if (r.status !== 200) return [];
  const out: Endpoint[] = [];
  for (const s of (rec(r.body).subsets as unknown[] | undefined) ?? []) {
    for (const [key, ready] of [['addresses', true], ['notReadyAddresses', false]] as const) {
      for (const a of (rec(s)[key] as unknown[] | undefined) ?? []) out.push({ ip: String(rec(a).ip), nodeName: String(rec(a).nodeName ?? ''), ready });
    }
  }
  return out;
}

/** Endpoints of every EndpointSlice labelled kubernetes.io/service-name=web. */
async function sliceEndpoints(c: Cluster): Promise<Endpoint[]> {
  const r = await call(c.server, 'GET', `/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=${encodeURIComponent('kubernetes.io/service-name=web')}`);
  const out: Endpoint[] = [];
  for (const s of items(r)) {
    for (const e of (s.endpoints as unknown[] | undefined) ?? []) {
      const ep = rec(e);
      for (const ip of (ep.addresses as unknown[] | undefined) ?? []) out.push({ ip: String(ip), nodeName: String(ep.nodeName ?? ''), ready: rec(ep.conditions).ready === true, terminating: rec(ep.conditions).terminating === true });
    }
  }
  return out;
}

describe.skipIf(skip)('nodes, pods and Services (processes, kubectl)', () => {
  let c: Cluster;
  let watch: PodWatch | undefined;
  beforeAll(async () => {
    c = await startCluster();
    await waitFor('3 Ready nodes with a podCIDR', async () => {
      const ns = await Promise.all(WORKERS.map((w) => node(c, w)));
      return ns.every((n) => n.ready === 'True' && n.podCIDR);
    }, 60_000, 200);
  }, 90_000);
  afterAll(async () => {
    watch?.stop();
    await Promise.all(c?.procs.map((p) => p.kill('SIGKILL')) ?? []);
    if (c) fs.rmSync(c.dir, { recursive: true, force: true });
  }, 30_000);

  it('6 pods Running with distinct IPs inside their nodes\' podCIDRs, spread over 3 nodes; the Service lists all 6', async () => {
    const file = path.join(c.dir, 'web.yaml');
    fs.writeFileSync(file, MANIFEST);
    const a = await c.kubectl('apply', '-f', file);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain('deployment.apps/web created');
    expect(a.stdout).toContain('service/web created');
    const pods = await waitFor('6 Running web pods with IPs', async () => {
      const ps = (await webPods(c)).filter((p) => !p.deleting);
      return ps.length === 6 && ps.every((p) => p.phase === 'Running' && p.podIP) ? ps : undefined;
    }, 90_000, 300);
    expect(new Set(pods.map((p) => p.podIP)).size).toBe(6);
    const cidrs = new Map<string, string>();
    for (const w of WORKERS) cidrs.set(w, (await node(c, w)).podCIDR ?? '');
    expect(new Set(cidrs.values()).size).toBe(3);
    for (const p of pods) expect(inCIDR(p.podIP, cidrs.get(p.nodeName) ?? '0.0.0.0/32'), `${p.name} ${p.podIP} on ${p.nodeName} (${cidrs.get(p.nodeName)})`).toBe(true);
    for (const w of WORKERS) expect(pods.filter((p) => p.nodeName === w).length, w).toBeGreaterThanOrEqual(1);

    const want = pods.map((p) => `${p.podIP}@${p.nodeName}`).sort();
    const ready = (eps: Endpoint[]) => eps.filter((e) => e.ready).map((e) => `${e.ip}@${e.nodeName}`).sort();
    await waitFor('Endpoints web: the 6 pods ready', async () => JSON.stringify(ready(await endpoints(c))) === JSON.stringify(want), 30_000, 200);
    await waitFor('EndpointSlices of web: the 6 pods ready', async () => JSON.stringify(ready(await sliceEndpoints(c))) === JSON.stringify(want), 30_000, 200);
    const g = await c.kubectl('get', 'endpoints', 'web', '--no-headers');
    expect(g.stdout).toMatch(/^web\s+\S+:80,\S+:80,\S+:80 \+ 3 more\.\.\./);
  }, 150_000);

  it('a SIGKILLed kubelet: Node Unknown and tainted unreachable, pods evicted and replaced elsewhere, endpoints drop them; restarted: Ready, untainted', async () => {
    const before = (await webPods(c)).filter((p) => !p.deleting);
    const victim = WORKERS.slice().sort((a, b) => before.filter((p) => p.nodeName === b).length - before.filter((p) => p.nodeName === a).length)[0]!;
    const doomed = before.filter((p) => p.nodeName === victim);
    expect(doomed.length).toBeGreaterThanOrEqual(1);
    const evictedAt = new Map<string, number>();
    watch = new PodWatch(c.server, 'default', 'app=web', (_w, ev) => {
      if ((ev.obj.deleting || ev.type === 'DELETED') && !evictedAt.has(ev.obj.name)) evictedAt.set(ev.obj.name, ev.at);
    });
    await watch.start();
    const t0 = Date.now();
    await c.kubelets.get(victim)!.kill('SIGKILL');

    await waitFor(`${victim} Ready=Unknown`, async () => (await node(c, victim)).ready === 'Unknown', 30_000, 200);
    const unknownAfter = Date.now() - t0;
    await waitFor(`${victim} tainted unreachable:NoExecute`, async () => (await node(c, victim)).taints.includes('node.kubernetes.io/unreachable:NoExecute'), 30_000, 200);
    const tainted = await node(c, victim);
    expect(tainted.taints).toContain('node.kubernetes.io/unreachable:NoSchedule');
    const raw = rec((await call(c.server, 'GET', `/api/v1/nodes/${victim}`)).body);
    const added = ((rec(raw.spec).taints as unknown[] | undefined) ?? []).map(rec).find((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute')?.timeAdded;
    expect(typeof added).toBe('string');
    const taintedAt = Date.parse(String(added));

    // The doomed pods are evicted (deleted; the dead kubelet cannot finish them, so they stay Terminating),
    // and 6 live pods run again, none on the dead node.
    await waitFor('the dead node\'s pods marked for deletion', () => doomed.every((d) => !watch!.pods.has(d.name) || watch!.pods.get(d.name)!.deleting), 30_000, 100);
    const after = await waitFor('6 Running web pods off the dead node', async () => {
      const ps = (await webPods(c)).filter((p) => !p.deleting);
      return ps.length === 6 && ps.every((p) => p.phase === 'Running' && p.podIP && p.nodeName !== victim) ? ps : undefined;
    }, 60_000, 300);
    const movedAfter = Date.now() - t0;
    // Evicted once tolerationSeconds (2) passed since the taint's timeAdded (whole seconds, rounded down).
    for (const d of doomed) expect(evictedAt.get(d.name)! - taintedAt, `${d.name} evicted after the taint`).toBeGreaterThanOrEqual(1_900);
    const evictedAfter = Math.min(...doomed.map((d) => evictedAt.get(d.name)!)) - taintedAt;
    expect(new Set(after.map((p) => p.podIP)).size).toBe(6);

    const deadIPs = new Set(doomed.map((d) => d.podIP));
    const want = after.map((p) => `${p.podIP}@${p.nodeName}`).sort();
    const ready = (eps: Endpoint[]) => eps.filter((e) => e.ready).map((e) => `${e.ip}@${e.nodeName}`).sort();
    const clean = (eps: Endpoint[]) => eps.every((e) => !deadIPs.has(e.ip) && e.nodeName !== victim);
    await waitFor('Endpoints web: the 6 live pods, none of the dead node', async () => {
      const eps = await endpoints(c);
      return clean(eps) && JSON.stringify(ready(eps)) === JSON.stringify(want);
    }, 30_000, 200);
    // An EndpointSlice keeps a terminating pod (ready false, terminating true) until the pod is gone, as
    // Kubernetes' EndpointSlice controller does; the Endpoints object above drops it at once.
    let last: Endpoint[] = [];
    await waitFor('EndpointSlices of web: the 6 live pods ready, the dead node\'s only as terminating', async () => {
      const eps = (last = await sliceEndpoints(c));
      const dead = eps.filter((e) => deadIPs.has(e.ip) || e.nodeName === victim);
      return dead.every((e) => !e.ready && e.terminating) && JSON.stringify(ready(eps)) === JSON.stringify(want);
    }, 30_000, 200).catch((e: unknown) => {
      throw new Error(`${String(e)}\nslices: ${JSON.stringify(last)}\nwant ready: ${JSON.stringify(want)}`);
    });
    console.log(`${victim} killed: Unknown after ${unknownAfter} ms, pods evicted ${evictedAfter} ms after the taint, ${doomed.length} replaced after ${movedAfter} ms`);

    await c.startKubelet(victim);
    await waitFor(`${victim} Ready again without taints`, async () => {
      const n = await node(c, victim);
      return n.ready === 'True' && n.taints.filter((t) => t.startsWith('node.kubernetes.io/')).length === 0;
    }, 60_000, 200);
    // The restarted kubelet finishes the pods evicted while it was away: they go.
    await waitFor('the evicted pods gone', async () => {
      const names = new Set((await webPods(c)).map((p) => p.name));
      return doomed.every((d) => !names.has(d.name));
    }, 60_000, 300);
    await waitFor('EndpointSlices of web: nothing left of the dead pods', async () => clean(await sliceEndpoints(c)), 30_000, 200);
  }, 180_000);
});
