// Cluster-autoscaler scale-up latency on a `kemu up` lab with one node group (pool, min 1, max 2, 2 cpu per
// node): a filler pod holds pool-0, then each round creates one pod that fits no Ready node and times, on
// watches opened before the run, pod Pending (ADDED) → TriggeredScaleUp (the autoscaler's event on the pod) →
// the new node Ready → the pod Running; p50/p99 over --rounds. Between rounds the pod is deleted and the bench
// waits for the autoscaler to drain and delete the new node (short --scale-down-* times), so every round starts
// from one node with the same lab: the scale-down time (pod deleted → Node gone) is printed too.
// usage: npm run bench -- cluster-autoscaler [--rounds 20] [--scan-interval 1s] (--help lists the flags)
import { readFileSync } from 'node:fs';
import { R, type CoreEvent, type Node, type Pod } from '@kemu/api';
import { waitFor } from '@kemu/base/testing/processes';
import { labAdminClient } from '@kemu/kemu';
import { startLab, missing } from '../test/lab/lab.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { observe } from './lib/observe.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'cluster-autoscaler',
  {
    rounds: { type: 'int', default: 20, usage: 'scale-ups timed (each followed by the scale-down back to one node)' },
    'scan-interval': { type: 'string', default: '1s', usage: "the autoscaler's --scan-interval" },
    'unneeded-time': { type: 'string', default: '2s', usage: "the autoscaler's --scale-down-unneeded-time and --scale-down-delay-after-add" },
  },
  (f) => atLeast(f, 1, ['rounds']),
);

const NS = 'default';
const GROUP = 'pool';
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
};
const ms = (x: number): string => `${Math.round(x)} ms`;
const pod = (name: string): Pod =>
  ({
    metadata: { name, namespace: NS, labels: { app: 'ca-bench' } },
    // 1500m of a 2-cpu node: two never share one, so each round's pod needs a new node.
    spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1500m' } } }], terminationGracePeriodSeconds: 0 },
  }) as Pod;

await runBench('cluster-autoscaler', async (work) => {
  const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker', 'cluster-autoscaler');
  if (skip) throw new Error(skip);
  const args = [
    `--node-group=name=${GROUP},min=1,max=2,cpu=2,memory=4Gi`,
    `--autoscaler-arg=--scan-interval=${flags['scan-interval']}`,
    `--autoscaler-arg=--scale-down-unneeded-time=${flags['unneeded-time']}`,
    `--autoscaler-arg=--scale-down-delay-after-add=${flags['unneeded-time']}`,
  ];
  console.log(`cluster-autoscaler scale-up: kemu up --workers=0 ${args.join(' ')} (no image pull delay), ${flags.rounds} rounds`);
  console.log(`/proc/loadavg before the run: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
  const tLab = performance.now();
  const starting = startLab({ apiservers: 1, controllerManagers: 1, schedulers: 1, workers: 0, imagePullDelay: '0s', extra: args });
  work.defer(async () => (await starting).down());
  const lab = await starting;
  await lab.waitRunning(undefined, 120_000);
  const client = labAdminClient(lab.dir);

  // What the watches saw, performance.now() on receipt.
  const added = new Map<string, number>();
  const running = new Map<string, number>();
  const boundTo = new Map<string, string>();
  const triggered = new Map<string, number>();
  const nodeReady = new Map<string, number>(); // forgotten when the Node is deleted: a reused name counts anew
  const nodeGone = new Map<string, number>();
  const stop = new AbortController();
  work.defer(() => stop.abort());
  const watching = [
    observe<Pod>(client, R.pods, stop.signal, (p, at, type) => {
      const name = p.metadata.name ?? '';
      if (type === 'ADDED' && !added.has(name)) added.set(name, at);
      if (type !== 'DELETED' && p.spec?.nodeName) boundTo.set(name, p.spec.nodeName);
      if (type !== 'DELETED' && p.status?.phase === 'Running' && !running.has(name)) running.set(name, at);
    }, NS),
    observe<CoreEvent>(client, R.events, stop.signal, (e, at) => {
      if (e.reason === 'TriggeredScaleUp' && e.involvedObject.kind === 'Pod' && !triggered.has(e.involvedObject.name ?? '')) triggered.set(e.involvedObject.name ?? '', at);
    }, NS),
    observe<Node>(client, R.nodes, stop.signal, (n, at, type) => {
      const name = n.metadata.name ?? '';
      if (type === 'DELETED') {
        nodeReady.delete(name);
        nodeGone.set(name, at);
      } else if (!nodeReady.has(name) && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) {
        nodeReady.set(name, at);
        nodeGone.delete(name);
      }
    }),
  ];
  const readyNodes = () => [...nodeReady.keys()].filter((n) => n.startsWith(`${GROUP}-`));
  await waitFor(`${GROUP}-0 Ready`, () => nodeReady.has(`${GROUP}-0`), 60_000, 100);

  // The filler takes pool-0; its own start is not measured.
  await client.create<Pod>(R.pods, NS, pod('filler'));
  await waitFor('filler Running', () => running.has('filler'), 60_000, 100);
  console.log(`lab up, ${GROUP}-0 Ready and the filler Running in ${((performance.now() - tLab) / 1000).toFixed(1)} s`);

  const toTrigger: number[] = [];
  const toReady: number[] = [];
  const toRunning: number[] = [];
  const total: number[] = [];
  const down: number[] = [];
  for (let i = 0; i < flags.rounds; i++) {
    const name = `round-${i}`;
    await client.create<Pod>(R.pods, NS, pod(name));
    await waitFor(`${name} Running`, () => running.has(name), 120_000, 50);
    const node = boundTo.get(name) ?? '';
    const t0 = added.get(name) ?? NaN;
    const t1 = triggered.get(name) ?? NaN;
    const t2 = nodeReady.get(node) ?? NaN;
    const t3 = running.get(name) ?? NaN;
    if (!triggered.has(name) || node === `${GROUP}-0`) throw new Error(`${name} ran on ${node} without a scale-up: the filler no longer fills ${GROUP}-0`);
    toTrigger.push(t1 - t0);
    toReady.push(t2 - t1);
    toRunning.push(t3 - t2);
    total.push(t3 - t0);

    const tDel = performance.now();
    await client.delete(R.pods, NS, name);
    await waitFor(`${node} deleted`, () => nodeGone.has(node) && readyNodes().length === 1, 120_000, 50);
    down.push((nodeGone.get(node) ?? NaN) - tDel);
    console.log(
      `  round ${i + 1}: ${node}: Pending → TriggeredScaleUp ${ms(t1 - t0)}, → node Ready ${ms(t2 - t1)}, → pod Running ${ms(t3 - t2)}` +
        ` (total ${ms(t3 - t0)}); pod deleted → Node gone ${ms(down[down.length - 1] ?? NaN)}`,
    );
  }
  stop.abort();
  await Promise.allSettled(watching);

  const line = (what: string, xs: number[]) => console.log(`${what.padEnd(36)} p50 ${ms(pct(xs, 50)).padStart(8)}   p99 ${ms(pct(xs, 99)).padStart(8)}`);
  console.log(`\nscale-up latency over ${flags.rounds} rounds (watch receipt times):`);
  line('Pending → TriggeredScaleUp', toTrigger);
  line('TriggeredScaleUp → node Ready', toReady);
  line('node Ready → pod Running', toRunning);
  line('Pending → pod Running (total)', total);
  line('scale-down: pod deleted → Node gone', down);
  console.log(`/proc/loadavg after the run: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
});
