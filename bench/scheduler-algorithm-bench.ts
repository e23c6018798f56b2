// In-process benchmark of the scheduling algorithm alone (no apiserver, binds to a fake client): N nodes,
// P pending pods, one scheduling cycle per pod; prints wall and CPU time per pod.
// usage: npm run bench -- scheduler-algorithm [--nodes 1000] [--pods 10000] [--workload plain|spread] (--help lists the flags)
import { realClock, silentLogger } from '@kemu/base';
import { defaultConfiguration } from '../packages/scheduler-framework/src/config/defaults.ts';
import { Scheduler } from '../packages/scheduler/src/scheduler.ts';
import { fakeClient, makeNode, makePod } from '../packages/scheduler-framework/src/testing/wrappers.ts';
import { atLeast, benchFlags, oneOf } from './lib/flags.ts';

const flags = benchFlags(
  'scheduler-algorithm',
  {
    nodes: { type: 'int', default: 1000, usage: 'nodes in the scheduler cache' },
    pods: { type: 'int', default: 10_000, usage: 'pending pods, one scheduling cycle each' },
    workload: { type: 'string', default: 'plain', usage: 'plain (requests only) or spread (zone spread + hostname anti-affinity on every pod)' },
  },
  (f) => atLeast(f, 1, ['nodes', 'pods']) ?? oneOf(f, 'workload', ['plain', 'spread']),
);
const N = flags.nodes;
const P = flags.pods;
const W = flags.workload;
const s = new Scheduler({ config: defaultConfiguration(), client: fakeClient(), clock: realClock, logger: silentLogger(), event: () => undefined });
for (let i = 0; i < N; i++)
  s.addNode(makeNode(`n${i}`, { labels: { 'topology.kubernetes.io/zone': `z${i % 10}` }, allocatable: { cpu: '32', memory: '256Gi', pods: '110' } }));
for (let i = 0; i < P; i++) {
  const group = `g${i % 100}`;
  const spread =
    W === 'spread'
      ? {
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { group } } },
          ],
          affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { group } }, topologyKey: 'kubernetes.io/hostname' }] } },
        }
      : {};
  s.addPod(makePod(`p${i}`, { labels: { group }, requests: { cpu: '100m', memory: '500Mi' }, ...spread }));
}
const t0 = performance.now();
const c0 = process.cpuUsage();
let n = 0;
while (s.queue.pendingCounts().active > 0) {
  const q = await s.queue.pop();
  if (!q) break;
  await s.scheduleOne(q);
  n++;
}
const wall = performance.now() - t0;
const cpu = process.cpuUsage(c0);
const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(
  JSON.stringify({ bench: 'scheduler-algorithm', workload: W, nodes: N, pods: n, wallMsPerPod: +(wall / n).toFixed(3), cpuMsPerPod: +(cpuMs / n).toFixed(3), podsPerCpuSecond: Math.round((n / cpuMs) * 1000) }),
);
