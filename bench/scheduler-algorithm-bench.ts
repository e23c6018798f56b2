// In-process benchmark of the scheduling algorithm alone (no apiserver, binds to a fake client): N nodes,
// P pending pods, one scheduling cycle per pod; prints wall and CPU time per pod.
// usage: node --import tsx bench/scheduler-algorithm-bench.ts [nodes] [pods] [plain|spread]
import { realClock, silentLogger } from '@kemu/base';
import { defaultConfiguration } from '../packages/scheduler/src/config/defaults.ts';
import { Scheduler } from '../packages/scheduler/src/scheduler.ts';
import { fakeClient, makeNode, makePod } from '../packages/scheduler/src/testing/wrappers.ts';

const N = Number(process.argv[2] ?? 1000);
const P = Number(process.argv[3] ?? 10000);
const W = process.argv[4] ?? 'plain';
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
