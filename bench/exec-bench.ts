// Streams benchmark on a `kemu up` lab (1 apiserver, 1 worker): `kubectl exec <pod> -- echo hi` round trips
// (kubectl → apiserver → the worker's kubelet → the emulated shell and back, a new kubectl each time, as a user
// runs it), p50/p99; and log throughput through the apiserver: `kubectl logs` of a container that printed
// --log-lines lines, in lines/s.
// usage: npm run bench -- exec [--execs 50] [--log-lines 100000]
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, hasKubectl } from '../test/lab/lab.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'exec',
  {
    execs: { type: 'int', default: 50, usage: 'kubectl exec round trips timed' },
    'log-lines': { type: 'int', default: 100_000, usage: 'lines the logging container prints (seq; the emulated shell prints at most 100,000)' },
  },
  (f) => atLeast(f, 1, ['execs', 'log-lines']),
);

const q = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;

await runBench('exec', async (work) => {
  const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'kubectl not installed');
  if (skip) throw new Error(skip);
  const starting = startLab({ apiservers: 1, controllerManagers: 1, schedulers: 1, workers: 1, imagePullDelay: '0s' });
  work.defer(async () => (await starting).down());
  const lab = await starting;
  const ok = async (...a: string[]) => {
    const r = await lab.kubectl(...a);
    if (r.code !== 0) throw new Error(`kubectl ${a.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  await waitFor('the default ServiceAccount', async () => (await lab.kubectl('get', 'sa', 'default')).code === 0, 60_000, 200);
  await ok('run', 'box', '--image=busybox:1.28', '--restart=Never', '--', 'sleep', '3600');
  await ok('run', 'printer', '--image=busybox:1.28', '--restart=Never', '--', 'seq', '1', String(flags['log-lines']));
  await waitFor('box Running', async () => (await ok('get', 'pod', 'box', '-o', 'jsonpath={.status.phase}')) === 'Running', 120_000, 200);
  await waitFor('printer Succeeded', async () => (await ok('get', 'pod', 'printer', '-o', 'jsonpath={.status.phase}')) === 'Succeeded', 120_000, 200);

  for (let i = 0; i < 3; i++) await ok('exec', 'box', '--', 'echo', 'hi');
  const times: number[] = [];
  for (let i = 0; i < flags.execs; i++) {
    const t0 = performance.now();
    const out = await ok('exec', 'box', '--', 'echo', 'hi');
    times.push(performance.now() - t0);
    if (out !== 'hi\n') throw new Error(`exec printed ${JSON.stringify(out)}`);
  }
  console.log(`exec: ${flags.execs} × kubectl exec box -- echo hi: p50 ${q(times, 0.5).toFixed(0)} ms, p99 ${q(times, 0.99).toFixed(0)} ms (a new kubectl process each time)`);

  const logTimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const out = await ok('logs', 'printer');
    logTimes.push(performance.now() - t0);
    const lines = out.split('\n').length - 1;
    if (lines !== flags['log-lines']) throw new Error(`kubectl logs printed ${lines} lines`);
  }
  const best = q(logTimes, 0.5);
  console.log(`logs: kubectl logs of ${flags['log-lines']} lines: median ${best.toFixed(0)} ms → ${Math.round(flags['log-lines'] / (best / 1000)).toLocaleString('en')} lines/s through the apiserver`);
});
