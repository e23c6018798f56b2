// Test helper: one kube-apiserver on a fresh SQLite file, kube-scheduler processes against it (free ports,
// short leases), a REST client for the test, and helpers to create nodes (no kubelet) and pods.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { R, type CoreEvent, type Lease, type Node, type Pod } from '@kemu/api';
import { RestClient } from '@kemu/client';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';

export const SHORT_LEASE = ['--leader-elect-lease-duration=2s', '--leader-elect-renew-deadline=1500ms', '--leader-elect-retry-period=500ms'];

export interface Env {
  dir: string;
  url: string;
  kubeconfig: string;
  client: RestClient;
  apiserver: Proc;
  schedulers: Map<string, Proc>;
  startScheduler(name: string, extra?: string[], configYaml?: string): Proc;
  stop(): Promise<void>;
}

export async function startEnv(): Promise<Env> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kemu-sched-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const apiserver = startProcess('kube-apiserver', BIN.apiserver, [
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--datastore-endpoint=sqlite://${path.join(dir, 'state.db')}`,
  ]);
  const client = new RestClient({ server: url, qps: 1000, burst: 2000 });
  await waitFor(
    'kube-apiserver ready',
    async () => {
      if (apiserver.child.exitCode !== null) throw new Error(`kube-apiserver exited: ${apiserver.output()}`);
      return (await client.raw('GET', '/readyz')).status === 200;
    },
    30_000,
  );
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    ['apiVersion: v1', 'kind: Config', `clusters: [{name: kemu, cluster: {server: "${url}"}}]`, 'contexts: [{name: kemu, context: {cluster: kemu}}]', 'current-context: kemu', ''].join('\n'),
  );
  const schedulers = new Map<string, Proc>();
  let n = 0;
  return {
    dir,
    url,
    kubeconfig,
    client,
    apiserver,
    schedulers,
    startScheduler(name, extra = SHORT_LEASE, configYaml) {
      const args = [`--kubeconfig=${kubeconfig}`, '--secure-port=0', `--hostname-override=${name}`, ...extra];
      if (configYaml) {
        const f = path.join(dir, `config-${name}-${++n}.yaml`);
        writeFileSync(f, configYaml);
        args.push(`--config=${f}`);
      }
      const p = startProcess(name, BIN.scheduler, args);
      schedulers.set(name, p);
      return p;
    },
    async stop() {
      await Promise.all([...schedulers.values()].map((p) => p.kill('SIGKILL')));
      await apiserver.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface NodeSpecOpts {
  cpu?: string;
  memory?: string;
  pods?: string;
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }[];
}

/** Creates a Ready node through the API (no kubelet), with capacity/allocatable in status. */
export async function createNode(client: RestClient, name: string, o: NodeSpecOpts = {}): Promise<Node> {
  const resources = { cpu: o.cpu ?? '4', memory: o.memory ?? '8Gi', pods: o.pods ?? '110' };
  const node: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(o.labels ?? {}) } },
    spec: { taints: o.taints },
    // Status is kept on create, as when a kubelet registers.
    status: { capacity: resources, allocatable: resources, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready' }] },
  };
  return client.create<Node>(R.nodes, undefined, node);
}

export function podSpec(name: string, o: Partial<Pod['spec']> & { labels?: Record<string, string>; cpu?: string } = {}): Pod {
  const { labels, cpu, ...spec } = o;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: {
      containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9', resources: cpu ? { requests: { cpu } } : {} }],
      ...spec,
    },
  };
}

export async function createPod(client: RestClient, pod: Pod, namespace = 'default'): Promise<Pod> {
  return client.create<Pod>(R.pods, namespace, pod);
}

export async function waitBound(client: RestClient, name: string, timeoutMs = 20_000, namespace = 'default'): Promise<string> {
  return waitFor(`pod ${name} bound`, async () => (await client.get<Pod>(R.pods, namespace, name)).spec.nodeName, timeoutMs, 20);
}

export async function eventsFor(client: RestClient, name: string, namespace = 'default'): Promise<CoreEvent[]> {
  const list = await client.list<CoreEvent>(R.events, namespace);
  return list.items.filter((e) => e.involvedObject.name === name);
}

export async function schedulerHolder(client: RestClient): Promise<string> {
  try {
    const l = await client.get<Lease>(R.leases, 'kube-system', 'kube-scheduler');
    return (l.spec?.holderIdentity ?? '').split('_')[0] ?? '';
  } catch {
    return '';
  }
}
