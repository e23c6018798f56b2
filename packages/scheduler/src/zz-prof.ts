import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { R, type Pod } from '@kemu/api';
import { createNode, startEnv } from '../../../test/scheduler/cluster.ts';
const env = await startEnv();
const N = 1000, P = 3000;
const pool = async (n: number, c: number, fn: (i: number) => Promise<unknown>) => { let k = 0; await Promise.all(Array.from({ length: c }, async () => { while (k < n) await fn(k++); })); };
await pool(N, 64, (i) => createNode(env.client, `node-${i}`, { cpu: '32', memory: '256Gi', labels: { 'topology.kubernetes.io/zone': `zone-${i % 10}` } }));
await pool(P, 64, (i) => { const group = `g${i % 100}`; return env.client.create(R.pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, labels: { group } }, spec: { schedulerName: 'x', containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '100m' } } }],
  topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { group } } }],
  affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { group } }, topologyKey: 'kubernetes.io/hostname' }] } } } } as Pod); });
const one = await env.client.get<Pod>(R.pods, 'default', 'p1');
console.log(JSON.stringify(one.spec.affinity), JSON.stringify(one.spec.topologySpreadConstraints));
writeFileSync(`${env.dir}/c.yaml`, `apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nleaderElection: { leaderElect: false }\nclientConnection: { qps: 5000, burst: 10000 }\nprofiles: [{ schedulerName: x }]\n`);
const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/sbench/real', 'packages/scheduler/bin/kube-scheduler.js', `--kubeconfig=${env.kubeconfig}`, '--secure-port=0', `--config=${env.dir}/c.yaml`], { stdio: 'inherit' });
const t0 = Date.now();
for (;;) { const l = await env.client.list<Pod>(R.pods, 'default', { fieldSelector: 'spec.nodeName=' }); if (l.items.length === 0) break; await new Promise((r) => setTimeout(r, 500)); }
console.log('bound all in', Date.now() - t0);
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
await env.stop();
