import { realClock, silentLogger } from '@kemu/base';
import { defaultConfiguration } from '/work/main/packages/scheduler/src/config/defaults.ts';
import { Scheduler } from '/work/main/packages/scheduler/src/scheduler.ts';
import { fakeClient, makeNode, makePod } from '/work/main/packages/scheduler/src/testing/wrappers.ts';
const N = Number(process.argv[2] ?? 1000), P = Number(process.argv[3] ?? 5000), W = process.argv[4] ?? 'plain';
const s = new Scheduler({ config: defaultConfiguration(), client: fakeClient(), clock: realClock, logger: silentLogger(), event: () => {} });
for (let i = 0; i < N; i++) s.addNode(makeNode(`n${i}`, { labels: { 'topology.kubernetes.io/zone': `z${i % 10}` }, allocatable: { cpu: '32', memory: '256Gi', pods: '110' } }));
for (let i = 0; i < P; i++) {
  const g = `g${i % 100}`;
  s.addPod(makePod(`p${i}`, { labels: { group: g }, requests: { cpu: '100m', memory: '500Mi' },
    ...(W === 'spread' ? { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { group: g } } }],
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { group: g } }, topologyKey: 'kubernetes.io/hostname' }] } } } : {}) }));
}
const t0 = performance.now();
let n = 0;
while (s.queue.pendingCounts().active > 0) { const q = await s.queue.pop(); if (!q) break; await s.scheduleOne(q); n++; }
const dt = performance.now() - t0;
console.log(`${W} nodes=${N} pods=${n} ${(dt / n).toFixed(3)} ms/pod => ${Math.round(n / dt * 1000)} pods/s`);
