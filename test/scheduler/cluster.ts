// Test helper: one kube-apiserver on a fresh SQLite file, kube-scheduler processes against it (free ports,
// short leases), a REST client for the test, and helpers to create nodes (no kubelet) and pods.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { R, type CoreEvent, type Node, type Pod } from '@kemu/api';
import type { RestClient } from '@kemu/client';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { SHORT_LEASE, leaseHolderName, newLeaseHolderName, startSingleApiserver, type SingleApiserver } from '../support/single-apiserver.ts';

export { SHORT_LEASE };

export interface Env extends Omit<SingleApiserver, 'stop' | 'restartApiserver'> {
  schedulers: Map<string, Proc>;
  startScheduler(name: string, extra?: string[], configYaml?: string): Proc;
  stop(): Promise<void>;
}

export async function startEnv(): Promise<Env> {
  const base = await startSingleApiserver({ prefix: 'kemu-sched-', qps: 1000, burst: 2000 });
  const schedulers = new Map<string, Proc>();
  let n = 0;
  return {
    dir: base.dir,
    url: base.url,
    kubeconfig: base.kubeconfig,
    client: base.client,
    apiserver: base.apiserver,
    schedulers,
    startScheduler(name, extra = SHORT_LEASE, configYaml) {
      const args = [`--kubeconfig=${base.kubeconfig}`, '--secure-port=0', `--hostname-override=${name}`, ...extra];
      if (configYaml) {
        const f = path.join(base.dir, `config-${name}-${++n}.yaml`);
        writeFileSync(f, configYaml);
        args.push(`--config=${f}`);
      }
      const p = startProcess(name, BIN.scheduler, args);
      schedulers.set(name, p);
      return p;
    },
    stop: () => base.stop(schedulers.values()),
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

export function schedulerHolder(client: RestClient): Promise<string> {
  return leaseHolderName(client, 'kube-scheduler');
}

/** The scheduler Lease's holder once it is someone other than old (a hand-over), else undefined. */
export function newSchedulerHolder(client: RestClient, old: string): Promise<string | undefined> {
  return newLeaseHolderName(client, 'kube-scheduler', old);
}
