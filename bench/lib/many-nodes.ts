// Bench helper: one kubelet process emulating many nodes (--node-count; nodes bench-0..N-1, or plain bench
// when it emulates one) filled with pods bound up front (no scheduler needed), and the /proc figures the
// benchmarks print for its process and the apiserver's.
import fs from 'node:fs';
import { R, type Node, type Pod, type Container } from '@kemu/api';
import type { RestClient } from '@kemu/client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The name of the node that the i-th pod goes to, round robin over `nodes` emulated nodes. */
export function benchNodeName(nodes: number, i: number): string {
  return nodes === 1 ? 'bench' : `bench-${i % nodes}`;
}

/** A process's resident memory and the CPU ticks (user + system, 1/100 s) it has used so far. */
export function procStats(pid: number): { rssKB: number; cpuTicks: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { rssKB, cpuTicks: Number(fields[11]) + Number(fields[12]) };
}

/** Polls the nodes until `count` of them are Ready. */
export async function waitNodesReady(client: RestClient, count: number): Promise<void> {
  for (;;) {
    const nodes = await client.list<Node>(R.nodes);
    if (nodes.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length >= count) return;
    await sleep(500);
  }
}

/**
 * Creates `count` pause pods <prefix>-<i> in default, labelled bench=<label>, the i-th bound to
 * benchNodeName(nodes, i), 32 creates in flight.
 */
export async function createBoundPods(
  client: RestClient,
  opts: { count: number; nodes: number; prefix: string; label: string; resources?: Container['resources'] },
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (;;) {
        const i = next++;
        if (i >= opts.count) return;
        const container: Container = { name: 'c', image: 'registry.k8s.io/pause:3.10', ...(opts.resources ? { resources: opts.resources } : {}) };
        await client.create(R.pods, 'default', {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `${opts.prefix}-${i}`, namespace: 'default', labels: { bench: opts.label } },
          spec: { nodeName: benchNodeName(opts.nodes, i), containers: [container] },
        } as Pod);
      }
    }),
  );
}

/** Polls the pods labelled bench=<label> in default until `count` of them are Running. */
export async function waitPodsRunning(client: RestClient, label: string, count: number): Promise<void> {
  for (;;) {
    const pods = await client.list<Pod>(R.pods, 'default', { labelSelector: `bench=${label}` });
    if (pods.items.filter((p) => p.status?.phase === 'Running').length >= count) return;
    await sleep(1000);
  }
}
