// HPA reaction time on a process lab running the kubernetes.io walkthrough (php-apache, `kubectl autoscale
// --cpu-percent=50 --min=1 --max=10`): from the load step (the busybox load generator created) to the
// HorizontalPodAutoscaler's status.desiredReplicas > 1, and to the Deployment's spec.replicas > 1; then from the
// load generator's deletion back to 1. Lab: 1 apiserver, 1 controller-manager, 1 scheduler, 2 workers; the HPA's
// real defaults except --horizontal-pod-autoscaler-downscale-stabilization (shortened so a run ends), the
// kubelets' --cpu-usage-window and metrics.k8s.io's 15 s resolution as they are unless given.
// usage: npm run bench -- hpa [--runs 3] [--sync-period 15s] [--downscale-stabilization 15s] [--cpu-usage-window 10s]
//        (--help lists the flags)
import path from 'node:path';
import { formatDuration } from '@kemu/base';
import { waitFor } from '@kemu/base/testing/processes';
import { ROOT } from '@kemu/kemu';
import { startLab, missing, type Lab } from '../test/lab/lab.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'hpa',
  {
    runs: { type: 'int', default: 3, usage: 'load steps (the median and each run are printed)' },
    'sync-period': { type: 'duration', default: 15_000, usage: "the controller-manager's --horizontal-pod-autoscaler-sync-period" },
    'downscale-stabilization': { type: 'duration', default: 15_000, usage: "the controller-manager's --horizontal-pod-autoscaler-downscale-stabilization (real default 5m)" },
    'cpu-usage-window': { type: 'duration', default: 10_000, usage: "the kubelets' --cpu-usage-window" },
  },
  (f) => atLeast(f, 1, ['runs']),
);

interface Hpa {
  status?: { desiredReplicas?: number; currentMetrics?: { resource?: { current?: { averageUtilization?: number } } }[] };
}
interface Deployment {
  spec?: { replicas?: number };
}

const LOAD = ['run', 'load-generator', '--image=busybox:1.28', '--restart=Never', '--', '/bin/sh', '-c', 'while sleep 0.01; do wget -q -O- http://php-apache; done'];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}
const secs = (xs: number[]) => `median ${(median(xs) / 1000).toFixed(1)} s  (runs: ${xs.map((x) => `${(x / 1000).toFixed(1)} s`).join(', ')})`;

async function replicas(lab: Lab): Promise<{ hpa: number; deploy: number; cpu: number | undefined }> {
  const [h, d] = await Promise.all([lab.kubectlJson<Hpa>('get', 'hpa', 'php-apache'), lab.kubectlJson<Deployment>('get', 'deployment', 'php-apache')]);
  return { hpa: h.status?.desiredReplicas ?? 0, deploy: d.spec?.replicas ?? 0, cpu: h.status?.currentMetrics?.[0]?.resource?.current?.averageUtilization };
}

const why = missing('apiserver', 'controller-manager', 'scheduler', 'worker');
if (why) {
  console.log(`hpa bench: ${why}`);
  process.exit(0);
}

await runBench('hpa', async (work) => {
  const starting = startLab({
    apiservers: 1,
    controllerManagers: 1,
    schedulers: 1,
    workers: 2,
    metricsServers: 1,
    metricResolution: '15s',
    imagePullDelay: '100ms',
    extra: [
      `--horizontal-pod-autoscaler-sync-period=${formatDuration(flags['sync-period'])}`,
      `--horizontal-pod-autoscaler-downscale-stabilization=${formatDuration(flags['downscale-stabilization'])}`,
      `--cpu-usage-window=${formatDuration(flags['cpu-usage-window'])}`,
    ],
  });
  work.defer(async () => (await starting).down());
  const lab = await starting;
  await lab.waitRunning(undefined, 180_000);
  console.log(
    `lab: 1 apiserver, 1 controller-manager, 1 scheduler, 2 workers; --horizontal-pod-autoscaler-sync-period=${formatDuration(flags['sync-period'])} ` +
      `--horizontal-pod-autoscaler-downscale-stabilization=${formatDuration(flags['downscale-stabilization'])} --cpu-usage-window=${formatDuration(flags['cpu-usage-window'])}, metrics.k8s.io resolution 15s`,
  );
  for (const args of [['apply', '-f', path.join(ROOT, 'deploy/examples/php-apache.yaml')], ['autoscale', 'deployment', 'php-apache', '--cpu-percent=50', '--min=1', '--max=10']]) {
    const r = await lab.kubectl(...args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  }
  const toStatus: number[] = [];
  const toDeploy: number[] = [];
  const toOne: number[] = [];
  for (let run = 0; run < flags.runs; run++) {
    // Idle first: one replica and a utilization below target, so the step is the only change.
    await waitFor('idle php-apache at 1 replica with metrics', async () => {
      const r = await replicas(lab);
      return r.hpa === 1 && r.deploy === 1 && r.cpu !== undefined && r.cpu < 50;
    }, 300_000, 500);
    const t0 = Date.now();
    const started = await lab.kubectl(...LOAD);
    if (started.code !== 0) throw new Error(`kubectl run load-generator: ${started.stderr}`);
    let status = 0;
    let peak = 1;
    await waitFor('Deployment scaled up', async () => {
      const r = await replicas(lab);
      if (!status && r.hpa > 1) status = Date.now() - t0;
      peak = Math.max(peak, r.deploy);
      return r.deploy > 1;
    }, 300_000, 200);
    toDeploy.push(Date.now() - t0);
    toStatus.push(status || Date.now() - t0);
    const t1 = Date.now();
    const del = await lab.kubectl('delete', 'pod', 'load-generator', '--wait=false');
    if (del.code !== 0) throw new Error(`kubectl delete pod load-generator: ${del.stderr}`);
    await waitFor('back to 1 replica', async () => (await replicas(lab)).deploy === 1, 600_000, 500);
    toOne.push(Date.now() - t1);
    await waitFor('load-generator gone', async () => (await lab.kubectl('get', 'pod', 'load-generator')).code !== 0, 120_000, 500);
    console.log(`run ${run + 1}: load step → status ${(toStatus[run]! / 1000).toFixed(1)} s, → Deployment ${(toDeploy[run]! / 1000).toFixed(1)} s (first scale to ${peak}); load gone → 1 replica ${(toOne[run]! / 1000).toFixed(1)} s`);
  }
  console.log(`HPA reaction, load step → status.desiredReplicas > 1: ${secs(toStatus)}`);
  console.log(`HPA reaction, load step → Deployment spec.replicas > 1: ${secs(toDeploy)}`);
  console.log(`HPA scale-down, load generator deleted → 1 replica: ${secs(toOne)}`);
});
